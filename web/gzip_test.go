package web

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGzipped(t *testing.T) {
	big := strings.Repeat("<p>plagd report line</p>\n", 500)
	h := gzipped(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, big)
		case "/small":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "tiny")
		case "/png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(make([]byte, 4096))
		}
	}))
	get := func(path, accept string) *http.Response {
		r := httptest.NewRequest("GET", path, nil)
		if accept != "" {
			r.Header.Set("Accept-Encoding", accept)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	resp := get("/big", "gzip, deflate")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.StatusCode != http.StatusTeapot {
		t.Fatalf("big page: encoding %q status %d", resp.Header.Get("Content-Encoding"), resp.StatusCode)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if string(body) != big {
		t.Fatal("gzip round trip changed the body")
	}
	for _, c := range []struct{ path, accept string }{{"/big", ""}, {"/big", "gzip;q=0"}, {"/small", "gzip"}, {"/png", "gzip"}} {
		if resp := get(c.path, c.accept); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s with Accept-Encoding %q was compressed", c.path, c.accept)
		}
	}
}
