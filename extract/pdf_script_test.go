package extract

import "testing"

// TestLatinInCyrillic: Latin look-alikes inside Cyrillic words (TeX's T2A
// fonts map Ukrainian і to Latin i) become Cyrillic; Latin words, mixed
// words with a Latin letter that has no twin, and lines without Cyrillic
// stay as they are.
func TestLatinInCyrillic(t *testing.T) {
	cases := map[string]string{
		"параметрiв пiсля iз": "параметрів після із",
		"файл README i xdg":   "файл README i xdg", // Latin words stay
		"Cистема":             "Система",           // a Latin C at the start
		"дslovo":              "дslovo",            // l, v have no twin: left alone
		"plain Latin line":    "plain Latin line",
	}
	for in, want := range cases {
		if got := latinInCyrillic(in); got != want {
			t.Errorf("latinInCyrillic(%q) = %q, want %q", in, got, want)
		}
	}
}
