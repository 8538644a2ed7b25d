package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/anchor-review/anchor-review/pkg/action"
	"github.com/anchor-review/anchor-review/pkg/llm"
	"github.com/anchor-review/anchor-review/pkg/persona"
	"github.com/anchor-review/anchor-review/pkg/version"
)

// runAction is the GitHub Action: inputs and event from the environment,
// then action.Run with the real clients.
func runAction(ctx context.Context, f *Factory) error {
	getenv, stdout := f.Getenv, f.Stdout
	a := githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(stdout))
	cfg, err := action.LoadConfig(getenv)
	var missingKey error
	if err != nil {
		if !noSecretsRun(cfg, err, getenv) {
			a.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
			return err
		}
		// A fork or Dependabot PR gets no secrets: the pre-check still
		// runs (a dependency bump skips cleanly), the review cannot.
		missingKey = err
	}
	action.Mask(a, cfg)
	personas, err := loadTeam(cfg.Personas)
	if err != nil {
		a.Errorf("%s", err.Error())
		return err
	}
	gh, err := newGitHub(f.HTTPClient, cfg.APIURL, cfg.GitHubToken)
	if err != nil {
		return fmt.Errorf("%w: %w", action.ErrUsage, err)
	}
	var model llm.Completer // none without a key: only the pre-check runs
	if missingKey == nil {
		mc := modelConfig{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, APIType: cfg.APIType, APIVersion: cfg.APIVersion, HTTPClient: f.HTTPClient}
		mc.CallTimeout, mc.Budget = cfg.ModelTime()
		if note := cfg.ModelTimeNote(); note != "" {
			fmt.Fprintln(stdout, note)
		}
		m, err := newModel(mc)
		if err != nil {
			return fmt.Errorf("%w: %w", action.ErrUsage, err)
		}
		model = m
	}
	err = action.Run(ctx, cfg, action.Deps{GitHub: gh, Model: model, Personas: personas, Actions: a, Log: stdout, MissingKey: missingKey, Version: version.String()})
	if errors.Is(err, action.ErrUsage) && !errors.Is(err, action.ErrConfig) {
		// An unsupported event or a missing PR number: say so where the
		// run's page shows it, not only in the raw log.
		a.Errorf("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if cfg.APIKey == "" && wantedKey(err) && noSecrets(cfg, getenv) {
		// api-key is optional for a base-url other than OpenAI's, so a run
		// without secrets reaches an endpoint that wants one: say why the
		// key is empty here, as the default endpoint's refusal does.
		a.Errorf("api-key is empty and the model endpoint wants one: %s", action.NoSecrets)
	}
	return err
}

// wantedKey reports whether err is the model endpoint's 401.
func wantedKey(err error) bool {
	var ae *llm.APIError
	return errors.As(err, &ae) && ae.Status == http.StatusUnauthorized
}

// noSecretsRun reports whether err is only an empty api-key on a run that
// GitHub gives no secrets: a pull request from a fork, or one Dependabot
// triggered. Such a run still gets the skip pre-check.
//
// A merge group needs no key either: its check is concluded from the
// reviews of its pull requests, with no model call, and a run that stopped
// at the missing key would leave the queue waiting on the check.
func noSecretsRun(cfg action.Config, err error, getenv func(string) string) bool {
	var ce *action.ConfigError
	return errors.As(err, &ce) && ce.Only("api-key") && (cfg.EventName == action.EventMergeGroup || noSecrets(cfg, getenv))
}

// noSecrets reports whether GitHub gives this run no secrets: a pull
// request from a fork, or one Dependabot triggered, that needs a review.
func noSecrets(cfg action.Config, getenv func(string) string) bool {
	ev, everr := action.ReadEvent(cfg, os.ReadFile)
	if everr != nil || !ev.Review {
		return false
	}
	// pull_request_target runs do get secrets, even for forks.
	fork := ev.Fork && ev.Name == action.EventPullRequest
	return fork || getenv("GITHUB_ACTOR") == "dependabot[bot]"
}

// loadTeam loads the persona prompts and checks a `personas` restriction
// up front, so a typo fails before any API call.
func loadTeam(restrict []string) ([]persona.Persona, error) {
	all, err := persona.Load()
	if err != nil {
		return nil, fmt.Errorf("load personas: %w", err)
	}
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
	}
	if msg := action.UnknownPersonas(restrict, names); msg != "" {
		return nil, fmt.Errorf("%w: input personas: %s", action.ErrUsage, msg)
	}
	return all, nil
}
