package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// README.md and the pages under docs/ are edited by hand, and they are where
// a user learns the commands and finds the rest: these tests keep them
// honest without running anything. A link must lead to a file (and heading)
// that exists, and a command line in an sh block must be one the binary
// takes, checked by the binary's own flag parsing.

// repoRoot is the repository's top, seen from this package's directory.
const repoRoot = "../.."

// docName is a page's path as a reader of the repository knows it.
func docName(page string) string {
	if rel, err := filepath.Rel(repoRoot, page); err == nil {
		return rel
	}
	return page
}

// docPages is README.md and every markdown file under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{filepath.Join(repoRoot, "README.md")}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// mdBlock is a fenced code block of a markdown page.
type mdBlock struct {
	lang  string
	line  int // of its first line of code, 1-based
	lines []string
}

// splitFences parses a page into its prose lines (code blocks blanked out,
// so that line numbers stay) and its fenced code blocks.
func splitFences(page string) (prose []string, blocks []mdBlock) {
	var in *mdBlock
	for i, l := range strings.Split(page, "\n") {
		fence := strings.HasPrefix(strings.TrimLeft(l, " "), "```")
		switch {
		case in == nil && fence:
			in = &mdBlock{lang: strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "`")), line: i + 2}
			prose = append(prose, "")
		case in != nil && fence:
			blocks = append(blocks, *in)
			in = nil
			prose = append(prose, "")
		case in != nil:
			in.lines = append(in.lines, l)
			prose = append(prose, "")
		default:
			prose = append(prose, l)
		}
	}
	return prose, blocks
}

var (
	mdLink       = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	mdRefLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s+(\S+)`)
	mdCodeSpan   = regexp.MustCompile("`[^`]*`")
	mdHeading    = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdLinkInText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	urlScheme    = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	notSlugChar  = regexp.MustCompile(`[^\p{L}\p{M}\p{N}\p{Pc} -]`)
)

// anchors are the heading anchors of a page as GitHub renders them: the
// heading's text lower-cased, every character but letters, digits, '_',
// '-' and spaces dropped, spaces made '-'; a repeated one gets -1, -2, ….
func anchors(page string) map[string]bool {
	prose, _ := splitFences(page)
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range prose {
		m := mdHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		text := mdLinkInText.ReplaceAllString(m[2], "$1")
		slug := strings.ReplaceAll(notSlugChar.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// Every relative link and image of README.md and docs/ must point at a file
// that exists, and a #fragment at a heading of that page.
func TestDocsLinksResolve(t *testing.T) {
	checked := 0
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		prose, _ := splitFences(string(text))
		// A link's text may be wrapped over lines: the page is searched
		// whole, its code spans blanked (their line breaks kept, so that a
		// match's line is still its line).
		body := mdCodeSpan.ReplaceAllStringFunc(strings.Join(prose, "\n"), func(span string) string {
			return strings.Map(func(r rune) rune {
				if r == '\n' {
					return r
				}
				return ' '
			}, span)
		})
		type link struct {
			target string
			line   int
		}
		var links []link
		for _, m := range mdLink.FindAllStringSubmatchIndex(body, -1) {
			links = append(links, link{body[m[2]:m[3]], strings.Count(body[:m[0]], "\n") + 1})
		}
		for i, l := range prose {
			if m := mdRefLink.FindStringSubmatch(l); m != nil {
				links = append(links, link{m[1], i + 1})
			}
		}
		for _, ln := range links {
			target := ln.target
			if urlScheme.MatchString(target) {
				continue // a URL: not ours to check offline
			}
			checked++
			where := docName(page) + ":" + strconv.Itoa(ln.line) + ": link " + target
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), file)
			}
			if rel, err := filepath.Rel(repoRoot, dest); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: leads out of the repository", where)
				continue
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: a #fragment into a file that is not markdown", where)
				continue
			}
			destText, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(destText))[frag] {
				t.Errorf("%s: %s has no heading with the anchor #%s", where, docName(dest), frag)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found in README.md or docs/: the pages were not read")
	}
	t.Logf("%d relative links checked", checked)
}

// The anchors are GitHub's, including the edge cases the pages use.
func TestDocsAnchorsAreGitHubs(t *testing.T) {
	page := "# Study B: what extra indexes cost a write\n## An `--out` that holds someone else's files\n" +
		"```sh\n# a comment, not a heading\n```\n## Ctrl-C (SIGINT or SIGTERM)\n## Ctrl-C (SIGINT or SIGTERM)\n## See [Method](method.md)\n"
	got := anchors(page)
	for _, want := range []string{"study-b-what-extra-indexes-cost-a-write", "an---out-that-holds-someone-elses-files",
		"ctrl-c-sigint-or-sigterm", "ctrl-c-sigint-or-sigterm-1", "see-method"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["a-comment-not-a-heading"] {
		t.Error("a shell comment in a code block was taken for a heading")
	}
}

// shellWords splits one shell command line into words: quotes grouped and
// removed, a # that starts a word ends the line (a comment).
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// searchbenchArgs is the arguments of a searchbench command line — after
// `searchbench` or `go run ./cmd/searchbench`, past any VAR=value before
// it — or ok false for another program's.
func searchbenchArgs(words []string) (args []string, ok bool) {
	for len(words) > 0 && strings.Contains(words[0], "=") {
		words = words[1:]
	}
	switch {
	case len(words) >= 1 && words[0] == "searchbench":
		return words[1:], true
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && strings.TrimSuffix(words[2], "/") == "./cmd/searchbench":
		return words[3:], true
	}
	return nil, false
}

// checkCommandLine parses args with the binary's own command tree, as
// `searchbench args…` would, up to running it: the command must exist, and
// every flag must be one of that command's and take the value given. What
// follows a `--` (deploy's shards' command) is a command line of its own.
func checkCommandLine(args []string) (string, error) {
	root := newRoot(os.LookupEnv)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return "", err
	}
	if cmd == root {
		return "", badInput("no such command: %s", strings.Join(args, " "))
	}
	if cmd.HasSubCommands() {
		var names []string
		for _, c := range cmd.Commands() {
			names = append(names, c.Name())
		}
		return "", badInput("%s needs one of its commands (%s)", cmd.CommandPath(), strings.Join(names, ", "))
	}
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return "", badInput("%s: %v", cmd.CommandPath(), err)
	}
	path := strings.TrimPrefix(cmd.CommandPath(), "searchbench ")
	if dash := cmd.Flags().ArgsLenAtDash(); dash >= 0 {
		inner, err := checkCommandLine(cmd.Flags().Args()[dash:])
		if err != nil {
			return "", badInput("%s -- %v", path, err)
		}
		path += " -- " + inner
	}
	return path, nil
}

// Every searchbench command line in an sh block of README.md and docs/ must
// parse: its command exists and each --flag it gives is that command's.
func TestDocsCommandsParse(t *testing.T) {
	var commands []string
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		_, blocks := splitFences(string(text))
		for _, b := range blocks {
			if b.lang != "sh" && b.lang != "bash" && b.lang != "shell" {
				continue
			}
			for i := 0; i < len(b.lines); i++ {
				start, line := i, b.lines[i]
				for strings.HasSuffix(line, `\`) && i+1 < len(b.lines) {
					i++
					line = strings.TrimSuffix(line, `\`) + " " + b.lines[i]
				}
				args, ok := searchbenchArgs(shellWords(line))
				if !ok {
					continue
				}
				path, err := checkCommandLine(args)
				if err != nil {
					t.Errorf("%s:%d: %s\n\t%v", docName(page), b.line+start, strings.TrimSpace(line), err)
					continue
				}
				commands = append(commands, path)
			}
		}
	}
	t.Logf("%d command lines parsed: %v", len(commands), commands)
	// The pages' examples cover the commands a user starts with; if none of
	// them was seen, the pages were not read as this test expects.
	for _, want := range []string{"run", "ladder", "coordinate", "deploy kubernetes -- run"} {
		if !slices.Contains(commands, want) {
			t.Errorf("no `searchbench %s …` line found in an sh block (found: %v)", want, commands)
		}
	}
}

// A flag a command does not have, a command that does not exist, and a
// value of the wrong kind are each refused: the check above can fail.
func TestDocsCommandCheckRefuses(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"searchbench run --users 10,50 --no-such-flag 3", "unknown flag: --no-such-flag"},
		{"go run ./cmd/searchbench run --users 10,50 --settle 3s --measur 15s", "unknown flag: --measur"},
		{"searchbench runn --users 10", "no such command"},
		{"searchbench run --ids ten", "--ids"},
		{"searchbench report --shards 3 a.json", "unknown flag: --shards"},
		{"searchbench deploy --shards 3", "needs one of its commands"},
		{"searchbench deploy swarm --shards 3 --image i -- run --nope 1", "deploy swarm -- searchbench run: unknown flag: --nope"},
	} {
		args, ok := searchbenchArgs(shellWords(c.line))
		if !ok {
			t.Fatalf("%s: not read as a searchbench command line", c.line)
		}
		if _, err := checkCommandLine(args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.line, err, c.want)
		}
	}
	for _, line := range []string{
		"go run ./cmd/searchbench run --users 10,50 --settle 3s --measure 15s",
		"searchbench deploy kubernetes --shards 3 --image x --out y -- run --engine meilisearch --url http://m:7700",
		"SEARCHBENCH_PASSWORD=x searchbench run --help # a comment --not-a-flag",
	} {
		args, _ := searchbenchArgs(shellWords(line))
		if _, err := checkCommandLine(args); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	if _, ok := searchbenchArgs(shellWords("kubectl -n load logs searchbench-coordinator")); ok {
		t.Error("another program's command line was taken for searchbench's")
	}
}
