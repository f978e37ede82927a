package agent

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input       float64 `yaml:"input" json:"input"`
	CachedInput float64 `yaml:"cached_input" json:"cached_input"`
	Output      float64 `yaml:"output" json:"output"`
}

// Prices maps a model name to its price. User prices (YAML `prices:`)
// override the built-in table model by model.
type Prices map[string]Price

// Cost returns the cost of u for model, and whether the model's price is
// known. Cached input tokens are billed at CachedInput; u.Input counts the
// uncached input tokens only (adapters normalise their CLI's figures).
func (p Prices) Cost(model string, u Usage) (float64, bool) {
	pr, ok := p.lookup(model)
	if !ok {
		return 0, false
	}
	return (float64(u.Input)*pr.Input + float64(u.CachedInput)*pr.CachedInput + float64(u.Output)*pr.Output) / 1e6, true
}

func (p Prices) lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	pr, ok := builtinPrices[model]
	return pr, ok
}

// Has reports whether model has a price, built in or user-supplied.
func (p Prices) Has(model string) bool {
	_, ok := p.lookup(model)
	return ok
}

// builtinPrices holds list prices for current models (USD per million tokens).
var builtinPrices = map[string]Price{}
