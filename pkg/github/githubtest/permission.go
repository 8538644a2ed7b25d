package githubtest

import (
	"fmt"
	"net/http"
)

// permissionOf maps a role to the legacy base role GitHub reports in the
// permission endpoint's "permission" field: maintain is reported as
// write, triage as read.
var permissionOf = map[string]string{
	"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none",
}

// role is a user's role on the repository as the fake holds it.
type role struct {
	name string // role_name: a base role or a custom role's name
	base string // the base role a custom role extends ("" for a base role)
}

// SetRole gives login a base role on the repository: admin, maintain,
// write, triage, read or none. Users never given one read the (public)
// repository like anyone: role read. SetRole panics on another name.
func (s *Server) SetRole(login, name string) {
	if _, ok := permissionOf[name]; !ok {
		panic(fmt.Sprintf("githubtest: SetRole(%q, %q): not a base role", login, name))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roles[login] = role{name: name}
}

// SetCustomRole gives login an organization's custom role called name,
// built on the base role base (read, triage, write or maintain), as
// GitHub Enterprise Cloud organizations define them.
func (s *Server) SetCustomRole(login, name, base string) {
	if _, ok := permissionOf[base]; !ok {
		panic(fmt.Sprintf("githubtest: SetCustomRole(%q, %q, %q): base is not a base role", login, name, base))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roles[login] = role{name: name, base: base}
}

// SetNoUser makes login no GitHub user (deleted or renamed): the
// permission endpoint answers 404, as GitHub does.
func (s *Server) SetNoUser(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roles[login] = role{}
}

// getPermission serves repos/get-collaborator-permission-level in the shape
// of fixtures/github/repository-collaborator-permission.json.
func (s *Server) getPermission(w http.ResponseWriter, r *http.Request) {
	login := r.PathValue("username")
	s.mu.Lock()
	ro, known := s.roles[login]
	s.mu.Unlock()
	if !known {
		ro = role{name: "read"}
	}
	if ro.name == "" {
		writeJSONError(w, http.StatusNotFound, "Not Found")
		return
	}
	base := ro.name
	if ro.base != "" {
		base = ro.base
	}
	v := template("repository-collaborator-permission.json")
	set(v, "permission", permissionOf[base])
	set(v, "role_name", ro.name)
	set(v, "user.login", login)
	set(v, "user.url", s.api(r)+"/users/"+login)
	writeJSON(w, http.StatusOK, v)
}
