package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StepFileDir is the directory, relative to the workspace, that holds the
// files this action leaves for later steps (report-path, sarif-path).
//
// A Docker container action sees only /github/workspace, /github/home,
// /github/workflow and /github/file_commands of the runner: RUNNER_TEMP is
// set in its environment but not mounted (actions/runner#1984), so a file
// written there is gone when the step ends. The workspace is mounted, and a
// later step runs in it, so the files go there and their outputs are paths
// relative to it: /github/workspace/... would name nothing outside the
// container.
const StepFileDir = ".anchor-review"

// writeStepFile writes b as name under the workspace's StepFileDir and
// returns its path relative to the workspace. The container runs as root;
// on a self-hosted runner the runner's user must still be able to clean
// the workspace, so the directory and file are given the workspace's owner
// where the platform allows (chownLike).
//
// The workspace may hold the pull request's files (a workflow that checks
// the PR out first), and a PR can commit StepFileDir or a file in it as a
// symbolic link: written through as root, the report would overwrite what
// the link points at. Only a real directory and a regular file (an earlier
// run's, on a self-hosted runner) are written; anything else is refused.
func writeStepFile(workspace, name string, b []byte) (string, error) {
	if workspace == "" {
		workspace = "." // outside Actions: the current directory, as a later command would resolve it
	}
	dir := filepath.Join(workspace, StepFileDir)
	rel := filepath.Join(StepFileDir, name)
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		return "", fmt.Errorf("create the workspace: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create %s: %w", StepFileDir, err)
	}
	if err := notLinked(dir, StepFileDir, fs.ModeDir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err == nil {
		if err := notLinked(path, rel, 0); err != nil {
			return "", err
		}
		if err := os.Remove(path); err != nil {
			return "", fmt.Errorf("replace %s: %w", rel, err)
		}
	}
	// O_EXCL: created here, never opened through a link put in its place.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", rel, err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", rel, err)
	}
	chownLike(workspace, dir, path)
	return rel, nil
}

// notLinked checks that path (named rel) is of the type want (a directory,
// or 0 for a regular file) and not a symbolic link or anything else.
func notLinked(path, rel string, want fs.FileMode) error {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return fmt.Errorf("check %s: %w", rel, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link (from the checked-out pull request?); not written through it", rel)
	case fi.Mode().Type() != want:
		return fmt.Errorf("%s is not a %s; not replaced", rel, map[bool]string{true: "directory", false: "regular file"}[want == fs.ModeDir])
	}
	return nil
}
