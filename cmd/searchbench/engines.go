package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/searchbench/searchbench/engines"
)

func newEnginesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "engines",
		Short: "List the engines this build can drive",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ENGINE\tWRITES RETURN WHEN\tSEARCH-TIME KNOB\tDESCRIPTION")
			for _, name := range engines.Drivers() {
				d, err := engines.Lookup(name)
				if err != nil {
					return err
				}
				desc := d.Describe()
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", name, desc.Visibility, knobText(desc.Knob), desc.Summary)
			}
			return w.Flush()
		},
	}
}

// knobText is a driver's knob as the list shows it: its name and range.
func knobText(k *engines.Knob) string {
	if k == nil {
		return "none"
	}
	return fmt.Sprintf("%s %d–%d", k.Name, k.Min, k.Max)
}

// noArgs rejects positional arguments as bad input.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return badInput("%s takes no arguments, got %q", cmd.Name(), args)
	}
	return nil
}
