package github_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/pkg/github"
	"github.com/anchor-review/anchor-review/pkg/github/githubtest"
)

// TestPermission: the permission endpoint read through go-github from the
// fake, which answers with GitHub's example payload. permission is the
// legacy base role (maintain reads as write, triage as read) and role_name
// the role given; CanWrite goes by the base role, so a custom role counts
// by what it is built on.
func TestPermission(t *testing.T) {
	srv, c, _ := setup(t)
	srv.SetRole("ada", "admin")
	srv.SetRole("mae", "maintain")
	srv.SetRole("wes", "write")
	srv.SetRole("tri", "triage")
	srv.SetRole("rea", "read")
	srv.SetRole("non", "none")
	srv.SetCustomRole("sec", "Security Engineer", "maintain")
	srv.SetCustomRole("aud", "Auditor", "read")
	tests := []struct {
		login       string
		level, role string
		canWrite    bool
	}{
		{"ada", "admin", "admin", true},
		{"mae", "write", "maintain", true},
		{"wes", "write", "write", true},
		{"tri", "read", "triage", false},
		{"rea", "read", "read", false},
		{"non", "none", "none", false},
		{"sec", "write", "Security Engineer", true},
		{"aud", "read", "Auditor", false},
		{"drive-by", "read", "read", false}, // no role: reads the public repository like anyone
	}
	for _, tt := range tests {
		p, err := c.Permission(t.Context(), owner, repo, tt.login)
		if err != nil {
			t.Fatalf("Permission(%s): %v", tt.login, err)
		}
		want := github.Permission{Login: tt.login, Level: tt.level, Role: tt.role}
		if p != want || p.CanWrite() != tt.canWrite {
			t.Errorf("Permission(%s) = %+v (CanWrite %v); want %+v (CanWrite %v)", tt.login, p, p.CanWrite(), want, tt.canWrite)
		}
	}
	var last githubtest.Request
	for _, r := range srv.Requests() {
		last = r
	}
	if last.Method != http.MethodGet || last.Path != "/repos/octo/demo/collaborators/drive-by/permission" {
		t.Errorf("last request %s %s; want GET /repos/octo/demo/collaborators/drive-by/permission", last.Method, last.Path)
	}
}

// TestPermissionErrors: a login that is no user (404), a refused read
// (403) and a server that keeps failing (5xx, after its retries) are
// errors, never a permission.
func TestPermissionErrors(t *testing.T) {
	t.Run("no such user", func(t *testing.T) {
		srv, c, _ := setup(t)
		srv.SetNoUser("ghost")
		p, err := c.Permission(t.Context(), owner, repo, "ghost")
		if !errors.Is(err, github.ErrNotFound) || p.CanWrite() {
			t.Fatalf("Permission = %+v, %v; want ErrNotFound", p, err)
		}
	})
	for _, status := range []int{http.StatusForbidden, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv, c, _ := setup(t)
			srv.SetRole("wes", "write")
			srv.Inject(githubtest.Fault{PathContains: "/permission", Status: status})
			p, err := c.Permission(t.Context(), owner, repo, "wes")
			if err == nil || p.CanWrite() {
				t.Fatalf("Permission = %+v, %v; want an error", p, err)
			}
			if !strings.Contains(err.Error(), "read the permission of wes on octo/demo") {
				t.Errorf("error %q does not say what failed", err)
			}
		})
	}
}
