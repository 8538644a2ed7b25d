package suite

import (
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/repoconfig"
)

// TestRepoConfigInvalidExits2: an invalid .github/anchor-review.yml at the
// base commit is exit 2 with every problem listed; nothing is posted and
// the model is never called.
func TestRepoConfigInvalidExits2(t *testing.T) {
	w := newWorld(t)
	w.gh.SetContent(baseSHA, repoconfig.Path, "fail_on: P7\nquiet: maybe\ncolour: blue\n")
	o := w.run()
	wantCode(t, o, 2)
	for _, want := range []string{"colour: unknown key", "fail_on: must be one of", "quiet: is string; want boolean"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	if n := len(w.gh.Comments(prNumber)); n != 0 {
		t.Errorf("comments posted: %d; want 0", n)
	}
	if n := len(w.gh.CheckRuns()); n != 0 {
		t.Errorf("check runs: %d; want 0", n)
	}
	if n := len(w.model.Requests()); n != 0 {
		t.Errorf("model requests: %d; want 0", n)
	}
	if o.outputs["verdict"] != "" || o.outputs["conclusion"] != "" {
		t.Errorf("outputs %v; want no verdict or conclusion", o.outputs)
	}
}

// TestRepoConfigPrecedenceEndToEnd: the file's fail_on replaces the
// default, and the report's Coverage says where each setting came from; a
// workflow input set to a non-default value beats the file.
func TestRepoConfigPrecedenceEndToEnd(t *testing.T) {
	const file = "fail_on: never\nmax_validations: 12\n"
	t.Run("file over default", func(t *testing.T) {
		w := newWorld(t)
		w.gh.SetContent(baseSHA, repoconfig.Path, file)
		o := w.run()
		wantCode(t, o, 0) // the buggy PR's P0 findings no longer fail the check
		if o.outputs["conclusion"] != "success" {
			t.Errorf("conclusion %q; want success (fail_on: never from the file)", o.outputs["conclusion"])
		}
		body := oneComment(t, w)
		for _, want := range []string{"**Configuration:** `.github/anchor-review.yml` at the base commit.",
			"from the config file: fail-on `never` · max-validations `12`", "from defaults: personas (none)"} {
			if !strings.Contains(body, want) {
				t.Errorf("comment lacks %q", want)
			}
		}
	})
	t.Run("input over file", func(t *testing.T) {
		w := newWorld(t)
		w.gh.SetContent(baseSHA, repoconfig.Path, file)
		w.env["INPUT_FAIL-ON"] = "P0"
		o := w.run()
		wantCode(t, o, 1)
		body := oneComment(t, w)
		if !strings.Contains(body, "from workflow inputs: fail-on `P0`\n- from the config file: max-validations `12`") {
			t.Errorf("comment lacks fail-on from the input:\n%s", body)
		}
	})
}
