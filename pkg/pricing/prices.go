package pricing

// TableDate is the day the built-in prices were read from the providers'
// published price lists. Prices change: the pricing input overrides them,
// and a report names where its price came from.
const TableDate = "2025-08-07"

// builtin holds OpenAI's published list prices (standard tier, US dollars
// per million tokens: input, cached input, output) as of TableDate, for
// the models named exactly so. Only prices known for certain are listed: a
// model left out shows tokens only. Dated snapshots are not folded into
// their alias, since an older snapshot can have another price (gpt-4o's
// first snapshot did).
var builtin = map[string]Price{
	"gpt-5":        {Input: 1.25, CachedInput: 0.125, Output: 10.00},
	"gpt-5-mini":   {Input: 0.25, CachedInput: 0.025, Output: 2.00},
	"gpt-5-nano":   {Input: 0.05, CachedInput: 0.005, Output: 0.40},
	"gpt-4.1":      {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"gpt-4.1-mini": {Input: 0.40, CachedInput: 0.10, Output: 1.60},
	"gpt-4.1-nano": {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	"gpt-4o":       {Input: 2.50, CachedInput: 1.25, Output: 10.00},
	"gpt-4o-mini":  {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	"o3":           {Input: 2.00, CachedInput: 0.50, Output: 8.00},
	"o4-mini":      {Input: 1.10, CachedInput: 0.275, Output: 4.40},
}
