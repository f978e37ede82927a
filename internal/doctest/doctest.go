// Package doctest runs the shell commands of README.md and docs/*.md
// (doctest_test.go) and keeps the pictures of docs/pictures current
// (pictures_test.go). This file reads the Markdown: the fenced shell blocks
// and the markers that say how a block is checked; the convention is in
// docs/README.md.
package doctest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Block is one fenced shell block (```sh, ```bash, ```shell or
// ```console) of a Markdown file, with the doctest markers on the lines
// right above its fence.
type Block struct {
	File string // relative to the repository
	Line int    // of the opening fence
	Lang string
	Text string // the block's lines, without the fences

	Skip     string   // `skip: REASON`: not run; architect commands parsed with --help
	Synopsis bool     // `synopsis`: usage lines; brackets dropped, then parsed with --help
	CI       string   // `ci: REASON`: commands .ci/run runs as they are; architect ones run here
	Each     bool     // `each`: every command on a fresh project
	Setup    []string // `setup: CMD`: run first (before each command, with each)
}

var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

var markerRE = regexp.MustCompile(`^<!--\s*doctest:\s*(.*?)\s*-->\s*$`)

// ParseFile returns the shell blocks of the Markdown file path (named rel
// in errors). A doctest marker that is not one of the known kinds, or a
// skip or ci without its reason, is an error: a typo must not turn a check
// off.
func ParseFile(path, rel string) ([]Block, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var (
		blocks  []Block
		markers []string
		cur     *Block
		lines   []string
		fence   string
	)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if fence != "" {
			if strings.TrimSpace(l) == fence {
				if cur != nil {
					cur.Text = strings.Join(lines, "\n")
					blocks = append(blocks, *cur)
				}
				cur, lines, fence = nil, nil, ""
				continue
			}
			lines = append(lines, l)
			continue
		}
		if m := markerRE.FindStringSubmatch(l); m != nil {
			markers = append(markers, m[1])
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			t := strings.TrimSpace(l)
			fence = strings.Repeat("`", len(t)-len(strings.TrimLeft(t, "`")))
			lang := strings.TrimSpace(strings.TrimLeft(t, "`"))
			if shellLangs[lang] {
				cur = &Block{File: rel, Line: n, Lang: lang}
				if err := cur.apply(markers); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", rel, n, err)
				}
			} else if len(markers) > 0 {
				return nil, fmt.Errorf("%s:%d: a doctest marker above a %q block, which is not run", rel, n, lang)
			}
			markers = nil
			continue
		}
		if strings.TrimSpace(l) != "" && len(markers) > 0 {
			return nil, fmt.Errorf("%s:%d: a doctest marker must be right above a fenced block", rel, n)
		}
	}
	return blocks, sc.Err()
}

func (b *Block) apply(markers []string) error {
	for _, m := range markers {
		kind, arg, _ := strings.Cut(m, ":")
		kind, arg = strings.TrimSpace(kind), strings.TrimSpace(arg)
		switch kind {
		case "skip", "ci":
			if arg == "" {
				return fmt.Errorf("doctest %s needs its reason (doctest: %s: WHY)", kind, kind)
			}
			if kind == "skip" {
				b.Skip = arg
			} else {
				b.CI = arg
			}
		case "synopsis":
			b.Synopsis = true
		case "each":
			b.Each = true
		case "setup":
			if arg == "" {
				return fmt.Errorf("doctest setup needs its command")
			}
			b.Setup = append(b.Setup, arg)
		default:
			return fmt.Errorf("unknown doctest marker %q (skip, synopsis, ci, each, setup)", kind)
		}
	}
	return nil
}

// Commands are the block's commands: a console block's `$ ` lines, a
// shell block's lines, with backslash continuations joined; blank lines and
// comment lines left out.
func (b Block) Commands() []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(b.Text, "\n") {
		if b.Lang == "console" && cur.Len() == 0 {
			rest, ok := strings.CutPrefix(l, "$ ")
			if !ok {
				continue // output
			}
			l = rest
		}
		if cur.Len() == 0 && (strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#")) {
			continue
		}
		if strings.HasSuffix(l, `\`) {
			cur.WriteString(strings.TrimSuffix(l, `\`))
			continue
		}
		cur.WriteString(l)
		out = append(out, strings.TrimSpace(cur.String()))
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, strings.TrimSpace(cur.String()))
	}
	return out
}

var goRunRE = regexp.MustCompile(`^go run \./cmd/([a-z]+)\b`)

// Rewrite turns `go run ./cmd/NAME ARGS` into `NAME ARGS`: the test runs
// the binary it built from the same package of this checkout.
func Rewrite(cmd string) string {
	return goRunRE.ReplaceAllString(cmd, "$1")
}

// IsArchitect reports whether cmd runs architect (after Rewrite).
func IsArchitect(cmd string) bool {
	return cmd == "architect" || strings.HasPrefix(cmd, "architect ")
}

var architectCallRE = regexp.MustCompile(`(?:^|[(|;&]\s*)(architect(?:\s[^()|;&<>]*)?)`)

// ArchitectCalls are the architect commands in the shell line cmd: at its
// start or after `(`, `|`, `;` or `&`, each up to the next redirection,
// pipe or list operator (`source <(architect completion bash)` holds
// `architect completion bash`).
func ArchitectCalls(cmd string) []string {
	cmd = commentRE.ReplaceAllString(cmd, "")
	var out []string
	for _, m := range architectCallRE.FindAllStringSubmatch(cmd, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

var (
	commentRE  = regexp.MustCompile(`\s+#.*$`)
	bracketsRE = regexp.MustCompile(`[\[\]…]|\.\.\.`)
)

// FlagsOnly is the architect command cmd reduced to what parsing its
// flags needs: its trailing comment removed, and, for a synopsis, its
// brackets and ellipses; then --help appended, so that architect parses
// every flag (an unknown one is an error, exit status 2) and runs nothing.
func FlagsOnly(cmd string, synopsis bool) string {
	cmd = commentRE.ReplaceAllString(cmd, "")
	if synopsis {
		cmd = bracketsRE.ReplaceAllString(cmd, " ")
	}
	return strings.Join(strings.Fields(cmd), " ") + " --help"
}

// Files are README.md and docs/*.md of the repository at root, relative.
func Files(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	out := []string{"README.md"}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		out = append(out, rel)
	}
	return out, nil
}
