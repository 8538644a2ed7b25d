package marker

import (
	"strconv"
	"strings"
)

// checkRefPrefix starts the external_id of every check run that goes with
// a report comment.
const checkRefPrefix = "anchor-review:report:"

// CheckRef is the external_id of the check run published with the report
// comment id: the check run names its comment, so a later run can tell
// our report from a comment that only looks like it (SPEC 9.2).
func CheckRef(commentID int64) string {
	return checkRefPrefix + strconv.FormatInt(commentID, 10)
}

// ParseCheckRef returns the comment a check run's external_id names; false
// when it names none.
func ParseCheckRef(externalID string) (int64, bool) {
	rest, ok := strings.CutPrefix(externalID, checkRefPrefix)
	if !ok || rest == "" || strings.TrimLeft(rest, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// CheckName is the name of the check run the Action publishes.
const CheckName = "anchor-review"
