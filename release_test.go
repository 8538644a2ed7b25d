package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDockerfilePinsBaseImages: every base image is pinned by digest, the
// release's version reaches pkg/version through -ldflags -X, and there is
// no "# syntax=" line (the default frontend is enough, and it would be one
// more unpinned image).
func TestDockerfilePinsBaseImages(t *testing.T) {
	text := readRepoFile(t, "Dockerfile")
	digest := regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)
	froms := 0
	for n, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.ToLower(line), "# syntax=") {
			t.Errorf("Dockerfile:%d: %q; want no syntax directive", n+1, line)
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.EqualFold(fields[0], "FROM") {
			continue
		}
		froms++
		if !digest.MatchString(fields[1]) {
			t.Errorf("Dockerfile:%d: base image %q is not pinned by a sha256 digest", n+1, fields[1])
		}
	}
	if froms != 2 {
		t.Errorf("Dockerfile has %d FROM lines; want 2 (build, runtime)", froms)
	}
	const x = "-X github.com/anchor-review/anchor-review/pkg/version.version=${VERSION}"
	if !strings.Contains(text, x) || !strings.Contains(text, "ARG VERSION") {
		t.Errorf("Dockerfile does not link the VERSION build argument into pkg/version (%s)", x)
	}
	if !strings.Contains(readRepoFile(t, "pkg/version/version.go"), "\nvar version string\n") {
		t.Error("pkg/version has no `var version string` for -ldflags -X to set")
	}
}

// TestReleasePinsImageInTag: main's action.yml builds the Dockerfile; the
// release workflow builds and pushes the image, then rewrites exactly that
// line to the image's digest in the release tag. The rewrite is replayed
// here on the real action.yml.
func TestReleasePinsImageInTag(t *testing.T) {
	action := readRepoFile(t, "action.yml")
	const mainLine = "  image: Dockerfile"
	if n := strings.Count("\n"+action, "\n"+mainLine+"\n"); n != 1 {
		t.Fatalf("action.yml has %d %q lines; want 1 on main", n, mainLine)
	}
	release := readRepoFile(t, ".github/workflows/release.yml")
	for _, want := range []string{
		`tags: ["v*.*.*"]`,
		"timeout-minutes:",
		"contents: write",
		"packages: write",
		"id: build\n        uses: docker/build-push-action@",
		"VERSION=${{ github.ref_name }}",
		"DIGEST: ${{ steps.build.outputs.digest }}",
		`image="ghcr.io/${GITHUB_REPOSITORY,,}@${DIGEST}"`,
		`sed -i "s|^  image: Dockerfile\$|  image: docker://${image}|" action.yml`,
		`grep -qx "  image: docker://${image}" action.yml`,
		`push --force origin "refs/tags/${GITHUB_REF_NAME}"`,
	} {
		if !strings.Contains(release, want) {
			t.Errorf("release.yml lacks %q", want)
		}
	}
	// Replay the sed on action.yml: one line changes, to a docker:// image
	// pinned by digest.
	image := "ghcr.io/anchor-review/anchor-review@sha256:" + strings.Repeat("ab", 32)
	pinned := regexp.MustCompile(`(?m)^  image: Dockerfile$`).ReplaceAllString(action, "  image: docker://"+image)
	before, after := strings.Split(action, "\n"), strings.Split(pinned, "\n")
	if len(before) != len(after) {
		t.Fatalf("the rewrite changed the number of lines")
	}
	changed := 0
	for i := range before {
		if before[i] != after[i] {
			changed++
			if after[i] != "  image: docker://"+image {
				t.Errorf("rewritten line %q; want the pinned image", after[i])
			}
		}
	}
	if changed != 1 {
		t.Errorf("the rewrite changed %d lines of action.yml; want 1", changed)
	}
}

// releaseStep is the run script of the release job's step named name.
func releaseStep(t *testing.T, name string) string {
	t.Helper()
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(readRepoFile(t, ".github/workflows/release.yml")), &wf); err != nil {
		t.Fatal(err)
	}
	for _, s := range wf.Jobs["image"].Steps {
		if strings.HasPrefix(s.Name, name) {
			return s.Run
		}
	}
	t.Fatalf("release.yml has no step %q", name)
	return ""
}

// runStep runs a release step's script with bash in dir, as the runner
// would (set -e, the step's environment), and returns its output.
func runStep(t *testing.T, script, dir string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestReleaseStepsReplay replays the release job's steps that need no
// registry: the version check against this checkout's CHANGELOG.md and
// VERSION (the tag it names passes, another fails), and the pin step
// against a copy of action.yml in a scratch repository whose origin is a
// local bare repository: action.yml runs the image by digest in one new
// commit on top of the tagged one, and the tag that reaches origin points
// at it.
func TestReleaseStepsReplay(t *testing.T) {
	for _, tool := range []string{"bash", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	check := releaseStep(t, "Check that CHANGELOG.md")
	tag := strings.TrimSuffix(strings.TrimSpace(readRepoFile(t, "pkg/version/VERSION")), "-dev")
	summary := filepath.Join(t.TempDir(), "out")
	if out, err := runStep(t, check, ".", "GITHUB_REF_NAME="+tag, "GITHUB_REPOSITORY=Anchor-Review/anchor-review", "GITHUB_OUTPUT="+summary); err != nil {
		t.Fatalf("the version check refuses %s on this checkout: %v\n%s", tag, err, out)
	}
	if got := readRepoFile(t, summary); got != "name=ghcr.io/anchor-review/anchor-review\n" {
		t.Errorf("the image name output is %q; want the lower-cased repository", got)
	}
	if out, err := runStep(t, check, ".", "GITHUB_REF_NAME=v9.9.9", "GITHUB_OUTPUT="+summary); err == nil {
		t.Errorf("the version check accepts v9.9.9, which CHANGELOG.md does not name:\n%s", out)
	}

	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	root := t.TempDir()
	origin, work := filepath.Join(root, "origin.git"), filepath.Join(root, "work")
	git(root, "init", "-q", "--bare", origin)
	git(root, "init", "-q", work)
	if err := os.WriteFile(filepath.Join(work, "action.yml"), []byte(readRepoFile(t, "action.yml")), 0o644); err != nil {
		t.Fatal(err)
	}
	git(work, "add", "action.yml")
	git(work, "commit", "-q", "-m", "release candidate")
	tagged := git(work, "rev-parse", "HEAD")
	git(work, "tag", "-a", "v1.2.3", "-m", "v1.2.3")
	git(work, "remote", "add", "origin", origin)
	git(work, "push", "-q", "origin", "refs/tags/v1.2.3")

	digest := "sha256:" + strings.Repeat("ab", 32)
	out, err := runStep(t, releaseStep(t, "Pin the image"), work, "DIGEST="+digest, "GH_TOKEN=not-a-token",
		"GITHUB_REPOSITORY=Anchor-Review/anchor-review", "GITHUB_REF_NAME=v1.2.3", "GITHUB_STEP_SUMMARY="+filepath.Join(root, "summary"),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if err != nil {
		t.Fatalf("the pin step failed: %v\n%s", err, out)
	}
	image := "ghcr.io/anchor-review/anchor-review@" + digest
	pinnedCommit := git(origin, "rev-parse", "v1.2.3^{commit}")
	if parent := git(origin, "rev-parse", pinnedCommit+"^"); parent != tagged {
		t.Errorf("origin's v1.2.3 is %s whose parent is %s; want a child of the tagged commit %s", pinnedCommit, parent, tagged)
	}
	if got := git(origin, "show", "v1.2.3:action.yml"); !strings.Contains(got+"\n", "\n  image: docker://"+image+"\n") || strings.Contains(got, "image: Dockerfile") {
		t.Errorf("the released action.yml does not run %s by digest", image)
	}
	if got := readRepoFile(t, filepath.Join(root, "summary")); !strings.Contains(got, "v1.2.3 now runs docker://"+image) {
		t.Errorf("the step summary says %q", got)
	}
	if _, err := runStep(t, releaseStep(t, "Pin the image"), work, "DIGEST=latest", "GITHUB_REPOSITORY=a/b", "GITHUB_REF_NAME=v1.2.3",
		"GITHUB_STEP_SUMMARY="+filepath.Join(root, "summary"), "GIT_CONFIG_GLOBAL=/dev/null"); err == nil {
		t.Error("the pin step accepts a digest that is not sha256:…")
	}
}

// TestChangelogNamesTheNextRelease: the VERSION file's release is the
// newest heading of CHANGELOG.md.
func TestChangelogNamesTheNextRelease(t *testing.T) {
	v := strings.TrimSuffix(strings.TrimSpace(readRepoFile(t, "pkg/version/VERSION")), "-dev")
	first := regexp.MustCompile(`(?m)^## (v\S+)`).FindStringSubmatch(readRepoFile(t, "CHANGELOG.md"))
	if first == nil || first[1] != v {
		t.Errorf("CHANGELOG.md's newest heading is %v; want %s (pkg/version/VERSION)", first, v)
	}
}
