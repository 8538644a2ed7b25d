package action_test

import (
	"errors"
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/action"
)

func ExampleLoadConfig() {
	env := map[string]string{
		"INPUT_GITHUB-TOKEN": "ghs_example",
		"INPUT_BASE-URL":     "http://localhost:11434/v1", // Ollama on the runner: no api-key needed
		"INPUT_MODEL":        "qwen2.5-coder",
		"INPUT_FAIL-ON":      "p2",
		"GITHUB_API_URL":     "https://ghe.example.com/api/v3",
		"GITHUB_EVENT_NAME":  "workflow_dispatch",
	}
	c, err := action.LoadConfig(func(k string) string { return env[k] })
	fmt.Println(c.Model, c.ValidatorModel, c.FailOn, c.APIURL, err)

	ev, err := action.ParseEvent(c.EventName, []byte(`{"repository":{"full_name":"octo-org/octo-repo"}}`), "42")
	fmt.Println(ev.Owner, ev.Repo, ev.PRNumber, ev.Rerun, err)

	env["INPUT_MODE"], env["INPUT_MAX-CONCURRENCY"] = "loud", "0"
	_, err = action.LoadConfig(func(k string) string { return env[k] })
	fmt.Println(errors.Is(err, action.ErrConfig))
	fmt.Println(err)
	// Output:
	// qwen2.5-coder qwen2.5-coder P2 https://ghe.example.com/api/v3/ <nil>
	// octo-org octo-repo 42 true <nil>
	// true
	// invalid configuration: input mode: is not one of comment, report-only; input max-concurrency: is outside 1..64
}
