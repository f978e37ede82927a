package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// The charts are inline SVG built here, one mark per iteration, so that
// they read the same at 2, 30 or 300 iterations: the drawing is 1000 units
// wide whatever the count, each iteration getting a slot of 1000/N of it
// across the whole width (with a gap while there is room for one), and
// the browser scales it to the page. With fewer than minSlots iterations
// a bar is no wider than a tenth of the drawing, in the middle of its
// slot, and each iteration is named under it. Hovering a mark shows its
// figures (<title>); clicking it opens the iteration below. Colours come
// from the page's CSS classes, so they follow dark mode. Text never goes
// inside a stretched drawing: the axis labels are HTML around it.

const chartW = 1000

// minSlots: with fewer iterations, a bar is as wide as with this many.
const minSlots = 10

// span is iteration i of n's whole slot: its x and its width.
func span(i, n int) (x, w float64) {
	w = float64(chartW) / float64(max(n, 1))
	return float64(i) * w, w
}

// cellSlot is where iteration i of n's cell of a strip goes: its whole
// slot, less a gap.
func cellSlot(i, n int) (x, w float64) {
	x, w = span(i, n)
	return gapped(x, w)
}

// slot is where iteration i of n's bar goes: its x and its width.
func slot(i, n int) (x, w float64) {
	x, w = span(i, n)
	if most := float64(chartW) / minSlots; w > most {
		x, w = x+(w-most)/2, most
	}
	return gapped(x, w)
}

func gapped(x, w float64) (float64, float64) {
	if w >= 4 {
		gap := math.Min(w*0.18, 6)
		x, w = x+gap/2, w-gap
	}
	return x, w
}

// svg opens a stretched drawing h units high.
func svg(b *strings.Builder, h int, label string) {
	fmt.Fprintf(b, `<svg class="chart chart-%d" viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-label="%s">`, h, chartW, h, html.EscapeString(label))
}

// mark is one iteration's rectangle, linked to its section below.
func mark(b *strings.Builder, n int, class string, x, y, w, h float64, title string) {
	if h <= 0 || w <= 0 {
		return
	}
	fmt.Fprintf(b, `<a href="#iteration-%d"><rect class="%s" x="%.2f" y="%.2f" width="%.2f" height="%.2f"><title>%s</title></rect></a>`,
		n, class, x, y, w, h, html.EscapeString(title))
}

// barPoint is one iteration's bar of a stacked bar chart: parts from the
// bottom up, each with its class and value.
type barPoint struct {
	N     int
	Parts []barPart
	Title string
}

type barPart struct {
	Class string
	Value float64
}

// stackedBars draws bars from the bottom up, scaled to top (the largest
// stack when top is 0).
func stackedBars(points []barPoint, h int, top float64, label string) template.HTML {
	if top <= 0 {
		for _, p := range points {
			sum := 0.0
			for _, part := range p.Parts {
				sum += part.Value
			}
			top = math.Max(top, sum)
		}
	}
	var b strings.Builder
	svg(&b, h, label)
	for i, p := range points {
		x, w := slot(i, len(points))
		y := float64(h)
		for _, part := range p.Parts {
			if top <= 0 || part.Value <= 0 {
				continue
			}
			ph := part.Value / top * float64(h)
			y -= ph
			mark(&b, p.N, part.Class, x, y, w, ph, p.Title)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// divergingBars draws up (above the middle) and down (below) values: the
// lines an iteration added and deleted.
func divergingBars(points []barPoint, h int, label string) template.HTML {
	top := 0.0
	for _, p := range points {
		for _, part := range p.Parts {
			top = math.Max(top, part.Value)
		}
	}
	var b strings.Builder
	svg(&b, h, label)
	mid := float64(h) / 2
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%.1f" x2="%d" y2="%.1f" vector-effect="non-scaling-stroke"/>`, mid, chartW, mid)
	for i, p := range points {
		if top <= 0 || len(p.Parts) < 2 {
			continue
		}
		x, w := slot(i, len(points))
		up := p.Parts[0].Value / top * mid
		down := p.Parts[1].Value / top * mid
		mark(&b, p.N, p.Parts[0].Class, x, mid-up, w, up, p.Title)
		mark(&b, p.N, p.Parts[1].Class, x, mid, w, down, p.Title)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// costLine draws the cumulative cost after each iteration against the
// budget (a dashed line; none when budget is 0), with a dot per iteration
// whose cost is unknown.
func costLine(n []int, cum []float64, unknown []bool, budget float64, h int) template.HTML {
	top := budget
	for _, c := range cum {
		top = math.Max(top, c)
	}
	top *= 1.08
	var b strings.Builder
	svg(&b, h, "cumulative cost against the budget")
	if top <= 0 {
		b.WriteString(`</svg>`)
		return template.HTML(b.String())
	}
	y := func(v float64) float64 { return float64(h) - v/top*float64(h) }
	if budget > 0 {
		fmt.Fprintf(&b, `<line class="budget" x1="0" y1="%.2f" x2="%d" y2="%.2f" vector-effect="non-scaling-stroke"><title>budget %s</title></line>`, y(budget), chartW, y(budget), money(budget))
	}
	var pts strings.Builder
	fmt.Fprintf(&pts, "0,%d ", h)
	for i := range cum {
		x, w := span(i, len(cum))
		fmt.Fprintf(&pts, "%.2f,%.2f ", x+w, y(cum[i]))
	}
	fmt.Fprintf(&b, `<polyline class="cost" points="%s" vector-effect="non-scaling-stroke"/>`, strings.TrimSpace(pts.String()))
	for i := range cum {
		x, w := cellSlot(i, len(cum))
		class := "hit"
		if unknown[i] {
			class = "hit unknown"
		}
		mark(&b, n[i], class, x, 0, w, float64(h), fmt.Sprintf("after iteration %d: %s%s", n[i], money(cum[i]), map[bool]string{true: " (this iteration's cost is unknown)"}[unknown[i]]))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// strip is one row of cells, one per iteration: the timeline, and each
// check's results.
func strip(cells []cell, h int, label string) template.HTML {
	var b strings.Builder
	svg(&b, h, label)
	for i, c := range cells {
		x, w := cellSlot(i, len(cells))
		mark(&b, c.N, c.Class, x, 0, w, float64(h), c.Title)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// charts fills the timeline and the four charts of v.
func charts(v *view, r *Run) {
	its := r.Iterations
	n := len(its)
	cells := make([]cell, n)
	ns := make([]int, n)
	cum := make([]float64, n)
	unknown := make([]bool, n)
	var durs, passing, diffs []barPoint
	total, longest, diffTop := 0.0, 0.0, 0
	own := true
	for _, it := range its {
		_, _, ok := ownDiff(it)
		own = own && ok
	}
	v.DiffOwn = own
	for i, it := range its {
		tone, verdict := iterVerdict(it)
		cells[i] = cell{N: it.Iteration, Class: tone, Title: fmt.Sprintf("iteration %d: %s, %s, %s", it.Iteration, verdict, dur(it.Duration), costOf(it.Cost))}
		ns[i] = it.Iteration
		if it.Cost != nil {
			total += *it.Cost
		} else {
			unknown[i] = true
		}
		cum[i] = total
		longest = math.Max(longest, it.AgentDuration+it.ChecksDuration)
		durs = append(durs, barPoint{N: it.Iteration, Title: fmt.Sprintf("iteration %d: agent %s, checks %s", it.Iteration, dur(it.AgentDuration), dur(it.ChecksDuration)),
			Parts: []barPart{{"agent", it.AgentDuration}, {"checks", it.ChecksDuration}}})
		pass, fail, timeout := 0, 0, 0
		for _, c := range it.CheckResults {
			switch {
			case c.Passed:
				pass++
			case c.TimedOut:
				timeout++
			default:
				fail++
			}
		}
		passing = append(passing, barPoint{N: it.Iteration, Title: fmt.Sprintf("iteration %d: %d of %d checks passed", it.Iteration, pass, len(r.Checks)),
			Parts: []barPart{{"pass", float64(pass)}, {"timeout", float64(timeout)}, {"fail", float64(fail)}}})
		add, del, _ := ownDiff(it)
		what := "changed"
		if !own {
			add, del = statLines(it.DiffStat)
			what = "changed so far"
		}
		diffTop = max(diffTop, add, del)
		diffs = append(diffs, barPoint{N: it.Iteration, Title: fmt.Sprintf("iteration %d: +%d −%d lines %s", it.Iteration, add, del, what),
			Parts: []barPart{{"added", float64(add)}, {"deleted", float64(del)}}})
	}
	v.Timeline = strip(cells, 28, "iterations by outcome")
	v.Cost = costLine(ns, cum, unknown, r.Config.MaxCost, 140)
	for _, u := range unknown {
		v.CostGaps = v.CostGaps || u
	}
	v.CostUnknown = true
	for _, u := range unknown {
		v.CostUnknown = v.CostUnknown && u
	}
	v.CostTop = money(math.Max(total, r.Config.MaxCost))
	if r.Config.MaxCost > 0 {
		v.Budget = money(r.Config.MaxCost)
	}
	v.Durations = stackedBars(durs, 140, 0, "duration of each iteration: agent and checks")
	v.DurTop = dur(longest)
	v.Passing = stackedBars(passing, 80, float64(max(len(r.Checks), 1)), "checks passing in each iteration")
	v.Diff = divergingBars(diffs, 120, "lines added and deleted")
	v.DiffTop = fmt.Sprint(diffTop)
}
