package report

import (
	"bytes"
	"html/template"
	"strings"
	"sync"

	"github.com/architect-dev/architect/prompt"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// md renders CommonMark with GitHub's tables, strikethrough, task lists
// and autolinks, sanitised: HTML written in the text is shown as the text
// it is (a task saying "<fast>" keeps its word; a <script> is only words),
// and goldmark's safe mode drops links to javascript:, vbscript:, file:
// and data: (other than images). A task or a specification cannot put a
// script, a style or an iframe in the page.
var md = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(htmlAsText{}, 100))))
})

// htmlAsText renders raw HTML, inline and in blocks, escaped.
type htmlAsText struct{}

func (htmlAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := node.(*ast.RawHTML).Segments
			for i := range segs.Len() {
				seg := segs.At(i)
				_, _ = w.WriteString(template.HTMLEscapeString(string(seg.Value(source))))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		n := node.(*ast.HTMLBlock)
		if !entering {
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString("<pre>")
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			_, _ = w.WriteString(template.HTMLEscapeString(string(seg.Value(source))))
		}
		if n.HasClosure() {
			_, _ = w.WriteString(template.HTMLEscapeString(string(n.ClosureLine.Value(source))))
		}
		_, _ = w.WriteString("</pre>\n")
		return ast.WalkSkipChildren, nil
	})
}

// markdown renders text as sanitised HTML.
func markdown(text string) template.HTML {
	var b bytes.Buffer
	if err := md().Convert([]byte(text), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(text) + "</pre>")
	}
	return template.HTML(b.String()) // goldmark escapes the text and omits raw HTML
}

// specOf is the task as the agent saw it in a prompt: the text under
// "## Task" or "## Task Specification", up to the instructions that
// follow it. It is "" when the prompt does not have that shape.
func specOf(text string) string {
	for _, head := range []string{"## Task Specification\n", "## Task\n"} {
		i := strings.Index(text, head)
		if i < 0 {
			continue
		}
		rest := text[i+len(head):]
		// The task ends where the prompt's next section begins: the
		// person's notes (shown as notes) or the instructions.
		for _, next := range []string{prompt.HeadingNotes, prompt.HeadingIteration} {
			if j := strings.Index(rest, "\n"+next+"\n"); j >= 0 {
				rest = rest[:j]
			}
		}
		return strings.TrimSpace(rest)
	}
	return ""
}

// Title is a one-line title for a run: the first line of its task, else
// the first heading of its specification, else fallback.
func Title(task, spec, fallback string) string {
	line := ""
	if t := strings.TrimSpace(task); t != "" {
		line, _, _ = strings.Cut(t, "\n")
	} else {
		for _, l := range strings.Split(spec, "\n") {
			if h, ok := strings.CutPrefix(strings.TrimSpace(l), "# "); ok {
				line = h
				break
			}
		}
	}
	// A title is plain text: Markdown's emphasis and code marks go.
	line = strings.NewReplacer("**", "", "__", "", "`", "").Replace(line)
	line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
	if line == "" {
		return fallback
	}
	return line
}
