package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

//go:embed overview.html.tmpl
var overviewText string

var overviewPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("overview").Funcs(template.FuncMap{"css": css}).Parse(overviewText))
})

// Entry is one run of an overview: its name (a batch task's id, or where
// it ran), the run, and the path of its own page.
type Entry struct {
	Name string
	Run  *Run
	Page string
}

type overview struct {
	Title     string
	Generated string
	Rows      []overviewRow
	Totals    []field
	Cost      string
	Time      string
	Iters     int
}

type overviewRow struct {
	Name, Title, Link    string
	Tone, Outcome, Stop  string
	Iterations           int
	Cost, Time           string
	Branch, Started      string
	Passing, ChecksTotal int
}

// WriteOverview writes a page at path with one row per run (outcome,
// iterations, cost, time, branch), each linking to the run's own page.
func WriteOverview(path, title string, entries []Entry, now time.Time) error {
	var b strings.Builder
	if err := writeOverview(&b, filepath.Dir(path), title, entries, now); err != nil {
		return err
	}
	return writeAtomic(path, b.String())
}

func writeOverview(w io.Writer, dir, title string, entries []Entry, now time.Time) error {
	v := overview{Title: title, Generated: now.Format("2006-01-02 15:04:05 MST")}
	var cost, secs float64
	gaps := false
	outcomes := map[string]int{}
	for _, e := range entries {
		r := e.Run
		st := r.State
		tone, headline, _ := outcome(r)
		outcomes[tone]++
		total := st.Elapsed
		if r.Result != nil && r.Result.TotalDuration > total {
			total = r.Result.TotalDuration
		}
		link, err := filepath.Rel(dir, e.Page)
		if err != nil {
			link = e.Page
		}
		c := money(st.KnownCost)
		if st.UnknownCostIterations > 0 {
			c += "+"
			gaps = true
		}
		row := overviewRow{Name: e.Name, Title: r.Title(), Link: filepath.ToSlash(link), Tone: tone, Outcome: headline,
			Stop: st.StopReason, Iterations: len(r.Iterations), Cost: c, Time: dur(total), Branch: st.Branch, Started: when(st.StartedAt)}
		if n := len(r.Iterations); n > 0 {
			for _, ch := range r.Iterations[n-1].CheckResults {
				row.ChecksTotal++
				if ch.Passed {
					row.Passing++
				}
			}
		}
		v.Rows = append(v.Rows, row)
		cost += st.KnownCost
		secs += total
		v.Iters += len(r.Iterations)
	}
	v.Cost = money(cost)
	if gaps {
		v.Cost += "+"
	}
	v.Time = dur(secs)
	v.Totals = []field{
		{"Runs", fmt.Sprint(len(entries)), false},
		{"Succeeded", fmt.Sprint(outcomes["good"]), false},
		{"Did not succeed", fmt.Sprint(outcomes["bad"] + outcomes["warn"]), false},
		{"Running or waiting", fmt.Sprint(outcomes["info"]), false},
		{"Iterations", fmt.Sprint(v.Iters), false},
		{"Total cost", v.Cost, false},
		{"Total time", v.Time, false},
	}
	return overviewPage().Execute(w, v)
}
