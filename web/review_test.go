package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestReportReview: a teacher saves the report's filters and marks it
// reviewed with a note; another teacher's next visit opens the report with
// those filters and sees who decided what and when; an address with its
// own filters wins; the API reads and changes the same; the audit log and
// the printed report record it.
func TestReportReview(t *testing.T) {
	a := newRTArchive(t, true)
	page := fmt.Sprintf("/documents/%d", a.essay)
	before := overall(t, a.get("teacher2", page).must(t, http.StatusOK, "Default filters: none saved", "Not marked as reviewed").body)

	// Count quotations (quotes=0) and save.
	r := a.post("teacher", page+"/filters", url.Values{"filters": {"quotes=0&source=5"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("save filters: %d %s", r.status, r.body)
	}
	r = a.get("teacher2", page).must(t, http.StatusOK, "Filters saved by teacher", "in use", `name="quotes" value="1">`)
	if after := overall(t, r.body); after <= before {
		t.Fatalf("saved filters counting quotations: figure %v, before %v", after, before)
	}
	a.get("teacher2", page+"?quotes=1").must(t, http.StatusOK, "not in use: this address asks for others")

	r = a.post("teacher2", page+"/review", url.Values{"reviewed": {"1"}, "note": {"Discussed with the student on Monday"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("review: %d %s", r.status, r.body)
	}
	a.get("teacher", page).must(t, http.StatusOK, "<strong>Reviewed</strong> by teacher2", "Discussed with the student on Monday")

	// The API.
	api := fmt.Sprintf("/api/v1/documents/%d/review", a.essay)
	got := a.get("teacher", api).must(t, http.StatusOK).json(t)
	if got["filters"] != "quotes=0" || got["reviewed"] != true || got["reviewed_by"] != "teacher2" {
		t.Fatalf("GET review: %v", got)
	}
	tok := a.token("teacher")
	r = a.api(tok, "PUT", api, "application/json", []byte(`{"reviewed": false}`))
	if r.status != http.StatusOK || !strings.Contains(r.body, `"reviewed": false`) || !strings.Contains(r.body, "Discussed with the student") {
		t.Fatalf("PUT review: %d %s", r.status, r.body)
	}
	a.api(tok, "PUT", api, "application/json", []byte(`{"filters": "min=abc"}`)).must(t, http.StatusBadRequest)
	a.api(tok, "PUT", fmt.Sprintf("/api/v1/documents/%d/review", 999999), "application/json", []byte(`{"reviewed": true}`)).must(t, http.StatusNotFound)

	// The audit log names the actions.
	a.get("admin", "/audit").must(t, http.StatusOK, "report.filters_saved", "report.reviewed", "report.review_withdrawn")

	// The print says it.
	a.post("teacher", page+"/review", url.Values{"reviewed": {"1"}, "note": {"final"}})
	if text := pdfText(t, a.get("teacher", page+"/report.pdf").must(t, http.StatusOK).body); !strings.Contains(text, "Reviewed by teacher,") || !strings.Contains(text, ": final.") {
		t.Fatalf("the PDF does not say the report was reviewed:\n%.600s", text)
	}
}
