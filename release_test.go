package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
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
