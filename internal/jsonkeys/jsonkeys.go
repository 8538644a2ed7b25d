// Package jsonkeys reads the keys of a JSON object in the order its bytes
// give them, for tests that check a schema keeps its property order on
// the wire (Go maps would sort them).
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Of lists the keys of the JSON object raw in byte order.
func Of(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("jsonkeys: not a JSON object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("jsonkeys: %w", err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("jsonkeys: %w", err)
		}
	}
	return keys, nil
}
