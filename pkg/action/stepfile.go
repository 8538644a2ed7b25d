package action

import (
	"fmt"
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
func writeStepFile(workspace, name string, b []byte) (string, error) {
	if workspace == "" {
		workspace = "." // outside Actions: the current directory, as a later command would resolve it
	}
	dir := filepath.Join(workspace, StepFileDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", StepFileDir, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Join(StepFileDir, name), err)
	}
	chownLike(workspace, dir, path)
	return filepath.Join(StepFileDir, name), nil
}
