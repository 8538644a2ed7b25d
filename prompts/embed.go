// Package prompts embeds the review's prompt text and schema: the shared
// rubric, the false-positive catalog, one Markdown file per persona, the
// validator's prompt and findings.schema.json. It holds data only; loading
// and checking live in pkg/persona and pkg/llm.
package prompts

import "embed"

// FS holds every prompt file and the findings schema.
//
//go:embed *.json *.md personas/*.md
var FS embed.FS
