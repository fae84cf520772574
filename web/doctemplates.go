package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/plagd/plagd/store"
)

// Templates staff register (store.Template): text documents carry by
// design, such as an assignment prompt or a faculty's declaration form. The
// /templates page lists them for everyone and lets staff register and
// remove them; the JSON API does the same under /api/v1/templates. Both
// change them in a transaction bound to the caller (audited), and both say
// how many documents the next run indexes again.

// templatesData is the templates page: the registered templates, and the
// form to register one (staff), refilled after a refused attempt.
type templatesData struct {
	pageBase
	Templates []templateRow
	Kinds     []string // the kinds of the archive's documents, for the form's select
	MaxBytes  int64
	Form      templateForm
	Error     string
}

// templateRow is one registered template as the page lists it.
type templateRow struct {
	store.Template
	Words int
}

// templateForm is what the form sent, kept when it is refused.
type templateForm struct {
	Name, Kind, KindOther, Body string
}

func (s *Server) templatesPage(w http.ResponseWriter, r *http.Request) {
	s.showTemplates(w, r, http.StatusOK, templateForm{}, "")
}

func (s *Server) showTemplates(w http.ResponseWriter, r *http.Request, status int, form templateForm, msg string) {
	ts, err := store.ListTemplates(r.Context(), s.db)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	kinds, err := store.DocumentKinds(r.Context(), s.db)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	d := templatesData{pageBase: s.base(r, "Templates"), Kinds: kinds, MaxBytes: store.MaxTemplateBytes, Form: form, Error: msg}
	for _, t := range ts {
		d.Templates = append(d.Templates, templateRow{Template: t, Words: len(strings.Fields(t.Body))})
	}
	s.render(w, r, status, "templates", d)
}

// addTemplate registers the form's template (staff): its text from the
// textarea or from an uploaded .txt file. A refused form is shown again
// with what was typed and why.
func (s *Server) addTemplate(w http.ResponseWriter, r *http.Request) {
	f := templateForm{Name: r.PostFormValue("name"), Kind: r.PostFormValue("kind"),
		KindOther: strings.TrimSpace(r.PostFormValue("kind_other")), Body: r.PostFormValue("body")}
	t := store.Template{Name: f.Name, Kind: f.Kind, Body: f.Body}
	if f.KindOther != "" {
		t.Kind = f.KindOther
	}
	body, err := s.templateFile(r, f.Body)
	if err == nil && body != "" {
		t.Body = body
	}
	var id int64
	var docs int
	if err == nil {
		id, docs, err = s.registerTemplate(r, t)
		err = templateError(err, 0)
	}
	if err != nil {
		status, _ := errorStatus(err)
		if status == http.StatusInternalServerError {
			s.internalError(w, r, false, err)
			return
		}
		s.showTemplates(w, r, status, f, capitalize(err.Error())+".")
		return
	}
	http.Redirect(w, r, "/templates?done="+url.QueryEscape(fmt.Sprintf("Template %d, %s, registered for %s; the next run indexes %s again.",
		id, strings.TrimSpace(t.Name), templateScope(t.Kind), documentsCount(docs))), http.StatusSeeOther)
}

// templateFile reads the form's optional text file ("file"): plain text
// only, and not beside text typed into the form. "" when none was sent.
func (s *Server) templateFile(r *http.Request, typed string) (string, error) {
	if r.MultipartForm == nil || len(r.MultipartForm.File["file"]) == 0 || r.MultipartForm.File["file"][0].Size == 0 {
		return "", nil
	}
	fh := r.MultipartForm.File["file"][0]
	if ext := strings.ToLower(path.Ext(fh.Filename)); ext != ".txt" {
		return "", problemf(errBadRequest, "%s is not a .txt file: for a PDF, a Word or another document, open it, copy the template's text and paste it into the text box",
			uploadName(fh.Filename))
	}
	if strings.TrimSpace(typed) != "" {
		return "", problemf(errBadRequest, "give the template's text either in the text box or as a file, not both")
	}
	content, name, _, err := readUpload(fh, store.MaxTemplateBytes)
	if err != nil {
		return "", err
	}
	text, err := plainText(strings.TrimPrefix(string(content), "\ufeff"))
	if err != nil {
		return "", problemf(errBadRequest, "%s is not UTF-8 text: save it as UTF-8, or paste the text into the text box", name)
	}
	return text, nil
}

// removeTemplate unregisters a template (staff), after the page's confirm step.
func (s *Server) removeTemplate(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.pageError(w, r, noTemplate(r.PathValue("id")))
		return
	}
	docs, err := s.unregisterTemplate(r, id)
	if err != nil {
		s.pageError(w, r, templateError(err, id))
		return
	}
	http.Redirect(w, r, "/templates?done="+url.QueryEscape(fmt.Sprintf("Template %d removed; the next run indexes %s again, with its text.",
		id, documentsCount(docs))), http.StatusSeeOther)
}

// registerTemplate and unregisterTemplate change the templates in a
// transaction bound to the caller, who is recorded as the template's author.
func (s *Server) registerTemplate(r *http.Request, t store.Template) (id int64, docs int, err error) {
	t.CreatedBy = who(r).User.Name
	err = s.audited(r, func(tx store.Querier) error {
		id, docs, err = store.AddTemplate(r.Context(), tx, t)
		return err
	})
	if err == nil {
		s.log.Info().Str("user", t.CreatedBy).Int64("template", id).Str("kind", t.Kind).Int("documents", docs).Msg("template registered")
	}
	return id, docs, err
}

func (s *Server) unregisterTemplate(r *http.Request, id int64) (docs int, err error) {
	err = s.audited(r, func(tx store.Querier) error {
		docs, err = store.RemoveTemplate(r.Context(), tx, id)
		return err
	})
	if err == nil {
		s.log.Info().Str("user", who(r).User.Name).Int64("template", id).Int("documents", docs).Msg("template removed")
	}
	return docs, err
}

// templateError maps the template store's errors to statuses: a refused
// template is 400 (413 over the size limit), an unknown one (id) 404.
func templateError(err error, id int64) error {
	switch {
	case errors.Is(err, store.ErrNoTemplate):
		return noTemplate(strconv.FormatInt(id, 10))
	case errors.Is(err, store.ErrBadTemplate):
		return &problem{kind: errBadRequest, msg: err.Error()}
	case errors.Is(err, store.ErrTemplateTooLarge):
		return &problem{kind: errTooLarge, msg: err.Error()}
	}
	return err
}

// noTemplate is the error for an {id} that is no registered template's.
func noTemplate(id string) error {
	return problemf(errNotFound, "no template with id %q is registered (the templates page and GET /api/v1/templates list them)", id)
}

// templateScope says in words which documents a template of kind applies to.
func templateScope(kind string) string {
	if kind = strings.TrimSpace(kind); kind == "" {
		return "every kind of document"
	}
	return "documents of kind " + strconv.Quote(kind)
}

// documentsCount is "1 document" or "312 documents".
func documentsCount(n int) string {
	if n == 1 {
		return "1 document"
	}
	return thousands(n) + " documents"
}

// The templates part of the JSON API.

type templateList struct {
	Templates []store.Template `json:"templates"`
}

type templateCreate struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Body string `json:"body"`
}

// templateChange is the answer of registering (with the new template's id)
// or removing a template: the documents the next run indexes again.
type templateChange struct {
	ID        int64 `json:"id,omitempty"`
	Documents int   `json:"documents"`
}

func (s *Server) apiListTemplates(w http.ResponseWriter, r *http.Request) {
	ts, err := store.ListTemplates(r.Context(), s.db)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, templateList{Templates: nonNil(ts)})
}

func (s *Server) apiCreateTemplate(w http.ResponseWriter, r *http.Request) {
	if _, err := requestType(r); err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	var in templateCreate
	if err := decodeJSON(r, &in, true); err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	body, err := plainText(in.Body)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	id, docs, err := s.registerTemplate(r, store.Template{Name: in.Name, Kind: in.Kind, Body: body})
	if err != nil {
		s.apiDocFail(w, r, templateError(err, 0))
		return
	}
	writeJSON(w, http.StatusCreated, templateChange{ID: id, Documents: docs})
}

func (s *Server) apiDeleteTemplate(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiFail(w, r, noTemplate(r.PathValue("id")))
		return
	}
	docs, err := s.unregisterTemplate(r, id)
	if err != nil {
		s.apiFail(w, r, templateError(err, id))
		return
	}
	writeJSON(w, http.StatusOK, templateChange{Documents: docs})
}
