package extract

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestRTF_Hidden: a copied paragraph with letters hidden between its words,
// each way RTF can hide them, reads as the clean paragraph and is flagged;
// text a reader does see is kept and not flagged.
func TestRTF_Hidden(t *testing.T) {
	const colors = `{\colortbl;\red255\green255\blue255;\red0\green0\blue0;\red250\green251\blue252;\red200\green200\blue200;}`
	vis := func(s string) string { return s }
	for _, c := range []struct {
		name   string
		start  string // control words of the hidden groups
		row    string // "": no table; else the row definition
		hidden bool
	}{
		{name: "v", start: `\v`, hidden: true},
		{name: "white", start: `\cf1`, hidden: true},
		{name: "near white", start: `\cf3`, hidden: true},
		{name: "tiny", start: `\fs2`, hidden: true},
		{name: "white on white highlight", start: `\cf1\highlight1`, hidden: true},
		{name: "unicode escapes", start: `\cf1\uc0`, hidden: true},
		{name: "white in a plain table", start: `\cf1`, row: `\trowd\cellx5000`, hidden: true},
		{name: "grey", start: `\cf4`, hidden: false},
		{name: "small", start: `\fs12`, hidden: false},
		{name: "white on black", start: `\cf1\cb2`, hidden: false},
		{name: "white on black highlight", start: `\cf1\highlight2`, hidden: false},
		{name: "v off", start: `\v0`, hidden: false},
		{name: "white in a shaded table", start: `\cf1`, row: `\trowd\clcbpat2\cellx5000`, hidden: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			hid := func(s string) string { return `{` + c.start + ` ` + s + `}` }
			if c.name == "unicode escapes" {
				hid = func(s string) string {
					out := `{` + c.start + ` `
					for _, r := range s {
						out += `\u` + strconv.Itoa(int(r)) + ` `
					}
					return out + `}`
				}
			}
			body, n := interleave(vis, hid)
			doc := `{\rtf1\ansi` + colors + c.row + `\pard`
			if c.row != "" {
				doc += `\intbl ` + body + `\cell\row}`
			} else {
				doc += ` ` + body + `\par}`
			}
			r, err := Read(context.Background(), []byte(doc), "a.rtf", "", Options{})
			if !c.hidden {
				if err != nil || r.Flags != nil || !strings.Contains(r.Text, "qz") {
					t.Fatalf("seen text changed: %q %+v %v", r.Text, r.Flags, err)
				}
				return
			}
			wantClean(t, r, err, n)
		})
	}
}
