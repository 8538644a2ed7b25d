package github

import (
	"context"
	"fmt"
	"net/url"
	"slices"
)

// Permission is a user's access to a repository, as GET
// /repos/{owner}/{repo}/collaborators/{username}/permission answers it.
//
// The two fields differ on purpose. Level is GitHub's legacy base role:
// admin, write, read or none, where maintain is reported as write and
// triage as read. Role is the role actually assigned: admin, maintain,
// write, triage, read, or the name of an organization's custom role.
// Authorization reads Level, which covers custom roles by their base;
// Role is for messages.
type Permission struct {
	Login string // user.login as GitHub spells it
	Level string // "permission"
	Role  string // "role_name"
}

// CanWrite reports whether p allows pushing to the repository: admin,
// maintain or write (maintain is reported as Level write).
func (p Permission) CanWrite() bool {
	return slices.Contains([]string{"admin", "write"}, p.Level)
}

// permissionLevel is the endpoint's answer. go-github v62's
// RepositoryPermissionLevel has no role_name, so it is decoded here.
type permissionLevel struct {
	Permission string `json:"permission"`
	RoleName   string `json:"role_name"`
	User       *struct {
		Login string `json:"login"`
	} `json:"user"`
}

// Permission reads user's permission on owner/repo. It needs no workflow
// permission beyond the metadata read every token has. GitHub answers 404
// for a login that is no user; the error then matches ErrNotFound.
func (c *Client) Permission(ctx context.Context, owner, repo, user string) (Permission, error) {
	op := fmt.Sprintf("read the permission of %s on %s/%s", user, owner, repo)
	u := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(owner), url.PathEscape(repo), url.PathEscape(user))
	req, err := c.gh.NewRequest("GET", u, nil)
	if err != nil {
		return Permission{}, fmt.Errorf("github: %s: %w", op, err)
	}
	var v permissionLevel
	if _, err := c.gh.Do(ctx, req, &v); err != nil {
		return Permission{}, classify(op, "", err)
	}
	p := Permission{Login: user, Level: v.Permission, Role: v.RoleName}
	if v.User != nil && v.User.Login != "" {
		p.Login = v.User.Login
	}
	return p, nil
}
