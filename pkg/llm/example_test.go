package llm_test

import (
	"context"
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/llm/llmtest"
	"github.com/anchor-review/anchor-review/prompts"
)

func Example() {
	srv := llmtest.New() // a local OpenAI-compatible server
	defer srv.Close()
	srv.Script(llm.Validator, llmtest.OK("```json\n{\"validated\": true, \"reason\": \"m is nil on line 12\"}\n```"))

	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-example", Schemas: prompts.Schemas()})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := c.Complete(context.Background(), llm.Request{
		Persona: llm.Validator,
		Schema:  "validation",
		Model:   "gpt-4o-mini",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You check one review finding."},
			{Role: llm.RoleUser, Content: llm.PersonaHeader + "validator\nIs the finding real?"},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(resp.JSON), resp.Attempts)
	// Output: {"reason":"m is nil on line 12","validated":true} 1
}
