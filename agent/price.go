package agent

import (
	"slices"
	"strings"
)

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
	return pr.cost(u), true
}

func (pr Price) cost(u Usage) float64 {
	return (float64(u.Input)*pr.Input + float64(u.CachedInput)*pr.CachedInput + float64(u.Output)*pr.Output) / 1e6
}

// lookup finds model's price: first among the user's prices, then in the
// built-in table, each time under the name as given and then under the
// names modelKeys derives from it (provider prefix, date and options
// dropped), so that `anthropic/claude-sonnet-4-5-20250929` finds
// `claude-sonnet-4-5`.
func (p Prices) lookup(model string) (Price, bool) {
	if pr, ok := p.user(model); ok {
		return pr, true
	}
	for _, k := range modelKeys(model) {
		if pr, ok := builtinPrices[k]; ok {
			return pr, true
		}
	}
	return Price{}, false
}

// user finds model among the user's prices only, under any of its names
// and with the user's keys read the same way.
func (p Prices) user(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	keys := modelKeys(model)
	for _, k := range keys {
		if pr, ok := p[k]; ok {
			return pr, true
		}
	}
	for name, pr := range p {
		if ks := modelKeys(name); len(ks) > 0 && len(keys) > 0 && ks[len(ks)-1] == keys[len(keys)-1] {
			return pr, true
		}
	}
	return Price{}, false
}

// userCost is Cost with the user's prices only: for CLIs that price their
// runs themselves and say $0 when they know no price.
func (p Prices) userCost(model string, u Usage) (float64, bool) {
	pr, ok := p.user(model)
	if !ok {
		return 0, false
	}
	return pr.cost(u), true
}

// Has reports whether model has a price, built in or user-supplied.
func (p Prices) Has(model string) bool {
	_, ok := p.lookup(model)
	return ok
}

var (
	// modelDate is a snapshot date: -20250929, -2025-08-07, @20250929.
	modelDate = lazyRegexp(`(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2})$`)
	// claudeDotted is a Claude id written with a dotted version, as
	// OpenRouter and GitHub Copilot do: claude-sonnet-4.5.
	claudeDotted = lazyRegexp(`^(claude-[a-z]+-\d+)\.(\d+)`)
)

// modelKeys returns the names under which model is looked up, from the
// most to the least specific, without duplicates: the name lower-cased;
// without options in brackets ("claude-opus-4-8[1m]"); without a provider
// prefix ("anthropic/", "openrouter/anthropic/", "models/"); without a
// snapshot date; with a Claude version dotted the API's way ("4.5" → "4-5").
func modelKeys(model string) []string {
	var keys []string
	add := func(k string) {
		if k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	k := strings.ToLower(strings.TrimSpace(model))
	add(k)
	if i := strings.IndexByte(k, '['); i > 0 {
		k = k[:i]
		add(k)
	}
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		k = k[i+1:]
		add(k)
	}
	if d := modelDate().ReplaceAllString(k, ""); d != k {
		k = d
		add(k)
	}
	if m := claudeDotted().FindStringSubmatch(k); m != nil {
		k = m[1] + "-" + m[2] + k[len(m[0]):]
		add(k)
	}
	return keys
}

// builtinPrices holds list prices for current models (USD per million
// tokens), keyed by API model id; dated and provider-prefixed ids find
// their family through modelKeys. Cache writes are billed as input (the
// adapters count them as input tokens): what they cost at OpenAI and
// Google, 20% less than Anthropic's 5-minute write price. Tiered models are
// listed at their base tier (prompts up to 200K tokens for Gemini Pro and
// Claude Sonnet 4, up to 272K for GPT-5.4 and later): longer prompts cost
// more than this table says.
//
// Sources, read 2026-11-22. The base is the models.dev price table bundled
// in opencode-ai 1.18.33 (npm; `opencode models PROVIDER --verbose`), the
// table opencode bills its users with. Checked against:
//   - Anthropic: docs.anthropic.com/en/docs/about-claude/pricing (Opus 4 and
//     4.1, Sonnet 4, which models.dev no longer lists) and deploybase.ai's
//     2026-03-21 copy of it (Opus 4.5/4.6, Sonnet 4.5/4.6, Haiku 4.5).
//   - OpenAI: deploybase.ai 2026-03-21 and nativeai.agency (gpt-4.1, o3,
//     o4-mini, gpt-5, -mini, -nano, gpt-5.1, gpt-5.4); OpenAI's Codex rate
//     card of 2026-05-13 (gpt-5.4-mini, gpt-5.5, gpt-5.3-codex; 25 credits
//     = $1); fernando-nog.netlify.app's 2026-05-05 snapshot of OpenAI's
//     page for the codex models, which models.dev no longer lists; o4-mini's
//     cached price from OpenAI's page.
//   - Google: ai.google.dev/gemini-api/docs/pricing as quoted by
//     morphllm.com and factquire.com (2026-07-04) and aifreeapi.com
//     (2026-01, gemini-3-pro-preview, which models.dev no longer lists).
//
// From models.dev alone (newer than every other source): Claude Opus
// 4.7/4.8, Sonnet 5, Opus 5/5.5, Fable 5/5.1 and their -fast variants;
// GPT-5.6 and GPT-6; Gemini 3.5-flash-lite to 3.8-flash. Left out for want
// of any source: gpt-5.1-codex-mini, the -fast and -pro variants of
// GPT-5.4 and later, and everything not listed here.
var builtinPrices = map[string]Price{
	// Anthropic.
	"claude-opus-4":        {Input: 15, CachedInput: 1.5, Output: 75},
	"claude-opus-4-0":      {Input: 15, CachedInput: 1.5, Output: 75},
	"claude-opus-4-1":      {Input: 15, CachedInput: 1.5, Output: 75},
	"claude-sonnet-4":      {Input: 3, CachedInput: 0.3, Output: 15},
	"claude-sonnet-4-0":    {Input: 3, CachedInput: 0.3, Output: 15},
	"claude-sonnet-4-5":    {Input: 3, CachedInput: 0.3, Output: 15},
	"claude-haiku-4-5":     {Input: 1, CachedInput: 0.1, Output: 5},
	"claude-opus-4-5":      {Input: 5, CachedInput: 0.5, Output: 25},
	"claude-opus-4-6":      {Input: 5, CachedInput: 0.5, Output: 25},
	"claude-sonnet-4-6":    {Input: 3, CachedInput: 0.3, Output: 15},
	"claude-opus-4-7":      {Input: 5, CachedInput: 0.5, Output: 25},
	"claude-opus-4-8":      {Input: 5, CachedInput: 0.5, Output: 25},
	"claude-opus-4-8-fast": {Input: 10, CachedInput: 1, Output: 50},
	"claude-sonnet-5":      {Input: 2, CachedInput: 0.2, Output: 10},
	"claude-opus-5":        {Input: 5, CachedInput: 0.5, Output: 25},
	"claude-opus-5-fast":   {Input: 10, CachedInput: 1, Output: 50},
	"claude-opus-5-5":      {Input: 4, CachedInput: 0.2, Output: 20},
	"claude-opus-5-5-fast": {Input: 8, CachedInput: 0.4, Output: 40},
	"claude-fable-5":       {Input: 10, CachedInput: 1, Output: 50},
	"claude-fable-5-1":     {Input: 10, CachedInput: 0.25, Output: 50},

	// OpenAI.
	"gpt-4.1":           {Input: 2, CachedInput: 0.5, Output: 8},
	"gpt-4.1-mini":      {Input: 0.4, CachedInput: 0.1, Output: 1.6},
	"o3":                {Input: 2, CachedInput: 0.5, Output: 8},
	"o4-mini":           {Input: 1.1, CachedInput: 0.275, Output: 4.4},
	"gpt-5":             {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5-mini":        {Input: 0.25, CachedInput: 0.025, Output: 2},
	"gpt-5-nano":        {Input: 0.05, CachedInput: 0.005, Output: 0.4},
	"gpt-5-codex":       {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5.1":           {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5.1-codex":     {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5.1-codex-max": {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5.2":           {Input: 1.75, CachedInput: 0.175, Output: 14},
	"gpt-5.2-codex":     {Input: 1.75, CachedInput: 0.175, Output: 14},
	"gpt-5.3-codex":     {Input: 1.75, CachedInput: 0.175, Output: 14},
	"gpt-5.4":           {Input: 2.5, CachedInput: 0.25, Output: 15},
	"gpt-5.4-mini":      {Input: 0.75, CachedInput: 0.075, Output: 4.5},
	"gpt-5.4-nano":      {Input: 0.2, CachedInput: 0.02, Output: 1.25},
	"gpt-5.5":           {Input: 5, CachedInput: 0.5, Output: 30},
	"gpt-5.6":           {Input: 4, CachedInput: 0.4, Output: 20},
	"gpt-5.6-sol":       {Input: 4, CachedInput: 0.4, Output: 20},
	"gpt-5.6-terra":     {Input: 2, CachedInput: 0.2, Output: 12},
	"gpt-5.6-luna":      {Input: 0.2, CachedInput: 0.02, Output: 1.2},
	"gpt-6-astra":       {Input: 10, CachedInput: 1, Output: 50},
	"gpt-6-sol":         {Input: 2, CachedInput: 0.2, Output: 10},
	"gpt-6-luna":        {Input: 0.1, CachedInput: 0.01, Output: 0.5},

	// Google.
	"gemini-2.5-pro":         {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gemini-2.5-flash":       {Input: 0.3, CachedInput: 0.03, Output: 2.5},
	"gemini-2.5-flash-lite":  {Input: 0.1, CachedInput: 0.01, Output: 0.4},
	"gemini-3-pro-preview":   {Input: 2, CachedInput: 0.2, Output: 12},
	"gemini-3-flash-preview": {Input: 0.5, CachedInput: 0.05, Output: 3},
	"gemini-3.1-pro-preview": {Input: 2, CachedInput: 0.2, Output: 12},
	"gemini-3.1-flash-lite":  {Input: 0.25, CachedInput: 0.025, Output: 1.5},
	"gemini-3.5-flash":       {Input: 1.5, CachedInput: 0.15, Output: 9},
	"gemini-3.5-flash-lite":  {Input: 0.3, CachedInput: 0.03, Output: 2.5},
	"gemini-3.6-flash":       {Input: 0.75, CachedInput: 0.075, Output: 3.75},
	"gemini-3.7-flash":       {Input: 0.75, CachedInput: 0.075, Output: 3.75},
	"gemini-3.8-flash":       {Input: 0.75, CachedInput: 0.075, Output: 3.75},
}
