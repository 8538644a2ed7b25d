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
// when the file ended within limit, and content is then the file; when it
// is false, content is a prefix of the file (at least the first
// min(limit, 64 KiB) bytes), for telling text from binary. A missing file is found=false with a
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
	if resp.ContentLength > limit {
		// Too large, and GitHub says so: the prefix alone.
		buf := make([]byte, min(limit, chunkSize))
		k, err := io.ReadFull(resp.Body, buf)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return "", false, false, fmt.Errorf("github: %s: %w", op, err)
		}
		return string(buf[:k]), true, false, nil
	}
	// Read in chunks and join them once: memory is what the file holds,
	// with no buffer doubling past it; a file past limit costs at most
	// limit bytes for as long as the read lasts.
	var chunks [][]byte
	var n int64
	for n <= limit {
		buf := make([]byte, min(chunkSize, limit+1-n))
		k, err := io.ReadFull(resp.Body, buf)
		chunks, n = append(chunks, buf[:k]), n+int64(k)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return "", false, false, fmt.Errorf("github: %s: %w", op, err)
		}
	}
	if n > limit {
		// Too large: the first chunk stands for the prefix.
		first := chunks[0]
		return string(first[:min(int64(len(first)), limit)]), true, false, nil
	}
	var b strings.Builder
	b.Grow(int(n))
	for _, c := range chunks {
		b.Write(c)
	}
	return b.String(), true, true, nil
}

// chunkSize is the unit FileBytes reads in.
const chunkSize = 64 << 10
