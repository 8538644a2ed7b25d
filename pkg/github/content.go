package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// FileBytes reads at most limit bytes of path at ref through the contents
// API's raw media type, streaming: a 100 MB file costs limit bytes of
// memory, not 100 MB (nor the 133 MB of its base64 JSON). whole is true
// when the file ended within limit. A missing file is found=false with a
// nil error.
func (c *Client) FileBytes(ctx context.Context, owner, repo, path, ref string, limit int64) (content string, found, whole bool, err error) {
	op := fmt.Sprintf("read %s at %s in %s/%s", path, ref, owner, repo)
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("repos/%s/%s/contents/%s?ref=%s", url.PathEscape(owner), url.PathEscape(repo), strings.Join(segs, "/"), url.QueryEscape(ref))
	req, err := c.gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return "", false, false, fmt.Errorf("github: %s: %w", op, err)
	}
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := c.gh.BareDo(ctx, req)
	if err != nil {
		err = classify(op, "", err)
		if errors.Is(err, ErrNotFound) {
			return "", false, false, nil
		}
		return "", false, false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", false, false, fmt.Errorf("github: %s: %w", op, err)
	}
	if int64(len(b)) > limit {
		return string(b[:limit]), true, false, nil
	}
	return string(b), true, true, nil
}
