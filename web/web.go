// Package web holds the daemon's page templates and static assets, embedded
// into the binary so that a deployment is one file.
package web

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"strings"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Static is the file system served under /static/.
func Static() fs.FS {
	sub, _ := fs.Sub(staticFS, "static")
	return sub
}

// Templates parses every page; each page template defines "content" and is
// rendered inside layout.html, with the shared pieces of partials.html.
func Templates() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"pct": func(f float64) string { return fmt.Sprintf("%.1f %%", f*100) },
		"deref": func(f *float64) float64 {
			if f == nil {
				return 0
			}
			return *f
		},
		"dur": func(d time.Duration) string {
			if d <= 0 {
				return "–"
			}
			return d.Round(time.Millisecond).String()
		},
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "–"
			}
			return t.Local().Format("2006-01-02 15:04:05")
		},
	}
	pages, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := make(map[string]*template.Template)
	for _, p := range pages {
		name := strings.TrimSuffix(strings.TrimPrefix(p, "templates/"), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS,
			"templates/layout.html", "templates/partials.html", p)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}
