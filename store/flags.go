package store

import (
	"encoding/json"
	"fmt"

	"github.com/plagd/plagd/disguise"
)

// FlagsValue is a document's flags as the jsonb columns hold them
// (plagd_text_stage, document_texts, plagd_extracted): nil, stored as NULL,
// when there are none.
func FlagsValue(f []disguise.Flag) (any, error) {
	if len(f) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode flags: %w", err)
	}
	return json.RawMessage(b), nil
}

// ParseFlags reads a flags column; NULL (nil) is no flag.
func ParseFlags(b []byte) ([]disguise.Flag, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var f []disguise.Flag
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("decode flags: %w", err)
	}
	if len(f) == 0 {
		return nil, nil
	}
	return f, nil
}
