package extract

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestHTML_Hidden: a copied paragraph with letters hidden between its
// words, each way inline markup can hide them, reads as the clean
// paragraph and is flagged, through the HTML5 parser and through the
// token reader that takes over when the parser refuses a document; text a
// reader does see is kept and not flagged.
func TestHTML_Hidden(t *testing.T) {
	vis := func(s string) string { return s }
	for _, c := range []struct {
		name   string
		open   string // the hidden letters' element
		close  string
		around string // style of an element around the paragraph
		hidden bool
	}{
		{name: "hidden attribute", open: `<span hidden>`, close: `</span>`, hidden: true},
		{name: "display none", open: `<span style="display: none !important">`, close: `</span>`, hidden: true},
		{name: "visibility hidden", open: `<b style="VISIBILITY:hidden">`, close: `</b>`, hidden: true},
		{name: "opacity", open: `<span style="opacity:0">`, close: `</span>`, hidden: true},
		{name: "white", open: `<span style="color:#fff">`, close: `</span>`, hidden: true},
		{name: "white rgb", open: `<span style="color: rgb(254, 254, 254)">`, close: `</span>`, hidden: true},
		{name: "font white", open: `<font color="white">`, close: `</font>`, hidden: true},
		{name: "font-size 0", open: `<span style="font-size:0">`, close: `</span>`, hidden: true},
		{name: "font-size 1px", open: `<span style="font-size:1px">`, close: `</span>`, hidden: true},
		{name: "tiny em of small", open: `<span style="font-size:0.1em">`, close: `</span>`, around: "font-size:10px", hidden: true},
		{name: "black on black", open: `<span style="color:black">`, close: `</span>`, around: "background:#000 url(x.png)", hidden: true},
		{name: "dropped inside hidden", open: `<span hidden><script>var a=1</script>`, close: `</span>`, hidden: true},
		{name: "grey", open: `<span style="color:#d9d9d9">`, close: `</span>`, hidden: false},
		{name: "small", open: `<span style="font-size:8px">`, close: `</span>`, hidden: false},
		{name: "white on dark", open: `<span style="color:white">`, close: `</span>`, around: "background-color: navy", hidden: false},
		{name: "white on dark bgcolor", open: `<font color="#ffffff">`, close: `</font>`, around: "|bgcolor", hidden: false},
		{name: "black again inside white", open: `<span style="color:white"><b style="color:black">`, close: `</b></span>`, hidden: false},
	} {
		hid := func(s string) string { return c.open + s + c.close }
		body, n := interleave(vis, hid)
		attr := `style="` + c.around + `"`
		if c.around == "|bgcolor" {
			attr = `bgcolor="#000080"`
		}
		page := `<html><body><div ` + attr + `><p>` + body + `</p></div></body></html>`
		deep := `<html><body>` + strings.Repeat("<div>", 600) + "</div>" + strings.Repeat("</div>", 599) +
			`<div ` + attr + `><p>` + body + `</p></div></body></html>`
		for _, v := range []struct{ how, page string }{{"parsed", page}, {"tokens", deep}} {
			t.Run(c.name+"/"+v.how, func(t *testing.T) {
				if _, err := html.Parse(strings.NewReader(v.page)); (err == nil) != (v.how == "parsed") {
					t.Fatalf("the HTML5 parser's answer %v: the %s path is not tested", err, v.how)
				}
				r, err := Read(context.Background(), []byte(v.page), "a.html", "", Options{})
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
}
