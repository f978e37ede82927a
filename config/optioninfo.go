package config

import "time"

// OptionInfo says how one option of the table is set, for tools and tests
// that must cover every option, including those added later (the command
// line's fuzz test walks it): its YAML key, its loop flag, its environment
// variable and the kind of value it takes.
type OptionInfo struct {
	Key  string // the key under ralph_loop: (hooks: for on_iteration and on_finish)
	Flag string // the loop's flag without dashes; "" for none
	Env  string // the ARCHITECT_* variable; "" for none
	YAML bool   // settable in a ralph.yaml or batch file
	// Kind is string, int, number, bool, list or duration.
	Kind string
	// Values lists the accepted values of an enumeration; nil otherwise.
	Values []string
}

// Options lists every option, in the table's order.
func Options() []OptionInfo {
	var def Config
	out := make([]OptionInfo, 0, len(options))
	for _, o := range options {
		info := OptionInfo{Key: o.key, YAML: o.yaml}
		if o.flag != "-" {
			info.Flag = o.flagName()
		}
		if o.env {
			info.Env = o.envName()
		}
		if o.values != nil {
			info.Values = o.values()
		}
		switch o.field(&def).(type) {
		case *string:
			info.Kind = "string"
		case *int:
			info.Kind = "int"
		case *float64:
			info.Kind = "number"
		case *bool:
			info.Kind = "bool"
		case *[]string:
			info.Kind = "list"
		case *time.Duration:
			info.Kind = "duration"
		}
		out = append(out, info)
	}
	return out
}
