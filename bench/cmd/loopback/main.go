// Command loopback serves the loopback load target (package
// bench/loopback) until interrupted, then prints how many requests it
// answered. bench/run.sh starts it pinned to its own core.
//
//	loopback -addr 127.0.0.1:7701 [-key KEY]   (or LOOPBACK_KEY)
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/searchbench/searchbench/bench/loopback"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7701", "listen address (a loopback address; a port below 32768)")
	key := flag.String("key", "", "master key the requests must carry (or LOOPBACK_KEY); empty: none")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "loopback: no arguments expected")
		os.Exit(2)
	}
	s := &loopback.Server{Key: *key}
	if s.Key == "" {
		s.Key = os.Getenv("LOOPBACK_KEY")
	}
	a, err := s.Listen(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopback:", err)
		os.Exit(2)
	}
	fmt.Printf("loopback: listening on http://%s\n", a)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
	fmt.Printf("loopback: %d requests, %d searches\n", s.Requests(), s.Searches())
}
