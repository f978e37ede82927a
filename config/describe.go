package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Setting is one resolved option and where its value came from.
type Setting struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`  // string, number, bool or list; durations as text ("2m")
	Source string `json:"source"` // "default", "ralph.yaml:12", "ARCHITECT_MAX_COST", "--max-cost", "TASK argument"
}

// Describe lists every option of c in the table's order, then the prices,
// each with its source from src (LoadSources's), for `architect loop --dry-run`.
func Describe(c Config, src Sources) []Setting {
	var out []Setting
	for _, o := range options {
		s := Setting{Key: o.key, Source: src[o.key]}
		if s.Source == "" {
			s.Source = "default"
		}
		switch p := o.field(&c).(type) {
		case *time.Duration:
			s.Value = FormatDuration(*p)
		case *[]string:
			s.Value = append([]string{}, *p...)
		default:
			s.Value = deref(p)
		}
		if o.key == "candidates" && len(c.CandidateAgents) > 0 {
			labels := make([]string, 0, len(c.CandidateAgents))
			for _, ca := range c.CandidateAgents {
				labels = append(labels, candidateLabel(ca))
			}
			s.Value = labels
		}
		if o.key == "tests" && c.Tests == "" {
			s.Value, s.Source = c.defaultTests()
		}
		out = append(out, s)
	}
	if len(c.Roles) > 0 {
		roles := make([]string, 0, len(c.Roles))
		for _, r := range c.Roles {
			s := r.Role
			if r.Name != "" {
				s += " (" + r.Name + ")"
			}
			if r.Agent != "" {
				s += ": " + r.spec()
			}
			roles = append(roles, s)
		}
		out = append(out, Setting{Key: "roles", Value: roles, Source: src["roles"]})
	}
	if len(c.Prices) > 0 {
		models := make([]string, 0, len(c.Prices))
		for m := range c.Prices {
			models = append(models, m)
		}
		sort.Strings(models)
		prices := map[string]any{}
		for _, m := range models {
			prices[m] = c.Prices[m]
		}
		out = append(out, Setting{Key: "prices", Value: prices, Source: src["prices"]})
	}
	return out
}

func deref(p any) any {
	switch v := p.(type) {
	case *string:
		return *v
	case *int:
		return *v
	case *float64:
		return *v
	case *bool:
		return *v
	}
	return nil
}

// Text is the value written for a person: lists and maps as JSON, empty
// strings as "(none)".
func (s Setting) Text() string {
	switch v := s.Value.(type) {
	case string:
		if v == "" {
			return "(none)"
		}
		return v
	case []string:
		if len(v) == 0 {
			return "(none)"
		}
		data, _ := json.Marshal(v)
		return string(data)
	case map[string]any:
		data, _ := json.Marshal(v)
		return string(data)
	}
	return strings.TrimSpace(fmt.Sprint(s.Value))
}
