package agent

import (
	"testing"

	"github.com/matryer/is"
)

func TestPriceLookupNames(t *testing.T) {
	sonnet := builtinPrices["claude-sonnet-4-5"]
	tests := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"claude-sonnet-4-5", sonnet, true},
		{"anthropic/claude-sonnet-4-5", sonnet, true},
		{"claude-sonnet-4-5-20250929", sonnet, true},
		{"anthropic/claude-sonnet-4-5-20250929", sonnet, true},
		{"openrouter/anthropic/claude-sonnet-4.5", sonnet, true},
		{"github-copilot/claude-sonnet-4.5", sonnet, true},
		{"vertex_ai/claude-sonnet-4-5@20250929", sonnet, true},
		{"Claude-Sonnet-4-5", sonnet, true},
		{"claude-opus-4-8[1m]", builtinPrices["claude-opus-4-8"], true},
		{"claude-opus-4-1-20250805", builtinPrices["claude-opus-4-1"], true},
		{"claude-haiku-4-5-20251001", builtinPrices["claude-haiku-4-5"], true},
		{"openai/gpt-5", builtinPrices["gpt-5"], true},
		{"gpt-5-2025-08-07", builtinPrices["gpt-5"], true},
		{"gpt-5-mini-2025-08-07", builtinPrices["gpt-5-mini"], true},
		{"openai/gpt-5.1-codex", builtinPrices["gpt-5.1-codex"], true},
		{"gpt-4.1-2025-04-14", builtinPrices["gpt-4.1"], true},
		{"o4-mini-2025-04-16", builtinPrices["o4-mini"], true},
		{"gemini/gemini-2.5-pro", builtinPrices["gemini-2.5-pro"], true},
		{"google/gemini-2.5-flash", builtinPrices["gemini-2.5-flash"], true},
		{"models/gemini-2.5-flash-lite", builtinPrices["gemini-2.5-flash-lite"], true},
		// Not the same model, so not found.
		{"claude-sonnet-4-5-fast", Price{}, false},
		{"gpt-5.5-pro", Price{}, false},
		{"ollama/qwen3-coder", Price{}, false},
		{"", Price{}, false},
	}
	for _, tt := range tests {
		is := is.NewRelaxed(t)
		pr, ok := Prices(nil).lookup(tt.model)
		is.Equal(ok, tt.ok)   // tt.model found?
		is.Equal(pr, tt.want) // its price
		is.Equal(Prices(nil).Has(tt.model), tt.ok)
	}
}

func TestPriceUserOverrides(t *testing.T) {
	is := is.New(t)
	mine := Price{Input: 1, CachedInput: 0.5, Output: 2}
	p := Prices{"claude-sonnet-4-5": mine, "Anthropic/Claude-Opus-4.5": mine, "qwen3": {Input: 0.1, Output: 0.2}}
	for _, m := range []string{"claude-sonnet-4-5", "anthropic/claude-sonnet-4-5-20250929", "claude-opus-4-5", "claude-opus-4-5-20251101"} {
		pr, ok := p.lookup(m)
		is.True(ok)
		is.Equal(pr, mine) // the user's price wins over the built-in one
	}
	is.True(p.Has("ollama/qwen3"))
	is.Equal(p["gpt-5"], Price{})
	is.Equal(mustLookup(t, p, "gpt-5"), builtinPrices["gpt-5"]) // others stay built in

	_, ok := p.userCost("gpt-5", Usage{Input: 1})
	is.True(!ok) // userCost ignores the built-in table
	c, ok := p.userCost("ollama/qwen3", Usage{Input: 1_000_000, Output: 1_000_000})
	is.True(ok)
	is.True(near(c, 0.3))
}

func mustLookup(t *testing.T, p Prices, m string) Price {
	t.Helper()
	pr, ok := p.lookup(m)
	if !ok {
		t.Fatalf("no price for %s", m)
	}
	return pr
}

func TestPriceCost(t *testing.T) {
	is := is.New(t)
	c, ok := Prices(nil).Cost("anthropic/claude-sonnet-4-5-20250929", Usage{Input: 1000, CachedInput: 2000, Output: 100})
	is.True(ok)
	// $3 in, $0.30 cached, $15 out per million: 1,000 × 3 = 3,000;
	// 2,000 × 0.3 = 600; 100 × 15 = 1,500; 5,100 per million = $0.0051.
	is.True(near(c, 0.0051))
	_, ok = Prices(nil).Cost("no-such-model", Usage{Input: 1})
	is.True(!ok)
}

func TestPriceTableSane(t *testing.T) {
	for name, pr := range builtinPrices {
		if pr.Input <= 0 || pr.Output <= 0 || pr.CachedInput < 0 || pr.CachedInput > pr.Input || pr.Output < pr.Input {
			t.Errorf("%s: implausible price %+v", name, pr)
		}
		if keys := modelKeys(name); keys[len(keys)-1] != name {
			t.Errorf("%s: not a canonical name (reads as %q)", name, keys[len(keys)-1])
		}
	}
}
