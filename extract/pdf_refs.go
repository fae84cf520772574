package extract

import (
	"reflect"

	pdf "github.com/ledongthuc/pdf"
)

// The PDF library does not say which object a Value came from, and cycles
// (a page tree listing itself, a form drawing itself) can only be told
// from deep repetition by object identity. These helpers read the
// library's unexported fields with reflect, read-only:
//
//   - Value.ptr, the object a value was resolved from (for a stream, which
//     is always an indirect object, its own number);
//   - the raw elements of an array Value (Value.data), where a reference
//     is still a reference and not yet the object it points to.
//
// TestRefsReadTheLibrary fails if the library's layout changes.

// objRef is an object number and generation.
type objRef struct {
	id  uint32
	gen uint16
}

// refOf returns the object v was resolved from; ok is false for a value
// that does not come from a file.
func refOf(v pdf.Value) (objRef, bool) {
	f := reflect.ValueOf(v).FieldByName("ptr")
	if !f.IsValid() || f.Kind() != reflect.Struct || f.NumField() != 2 {
		return objRef{}, false
	}
	r := objRef{id: uint32(f.Field(0).Uint()), gen: uint16(f.Field(1).Uint())}
	return r, r != objRef{}
}

// rawRef returns the reference held at index i of array v, without
// resolving it; ok is false when the element is a direct object.
func rawRef(v pdf.Value, i int) (objRef, bool) {
	d := reflect.ValueOf(v).FieldByName("data")
	if !d.IsValid() || d.Kind() != reflect.Interface || d.IsNil() {
		return objRef{}, false
	}
	a := d.Elem()
	if a.Kind() != reflect.Slice || i < 0 || i >= a.Len() {
		return objRef{}, false
	}
	return objptrOf(a.Index(i))
}

// rawKeyRef returns the reference held under key in dictionary (or
// stream) v, without resolving it; ok is false for a direct object.
func rawKeyRef(v pdf.Value, key string) (objRef, bool) {
	d := reflect.ValueOf(v).FieldByName("data")
	if !d.IsValid() || d.Kind() != reflect.Interface || d.IsNil() {
		return objRef{}, false
	}
	m := d.Elem()
	if m.Kind() == reflect.Struct { // a stream: its header dictionary
		m = m.FieldByName("hdr")
	}
	if !m.IsValid() || m.Kind() != reflect.Map || m.Type().Key().Kind() != reflect.String {
		return objRef{}, false
	}
	e := m.MapIndex(reflect.ValueOf(key).Convert(m.Type().Key()))
	if !e.IsValid() {
		return objRef{}, false
	}
	return objptrOf(e)
}

// objptrOf reads the library's unexported reference type (objptr: object
// number and generation) out of e, a value or an interface holding one.
func objptrOf(e reflect.Value) (objRef, bool) {
	if e.Kind() == reflect.Interface {
		if e.IsNil() {
			return objRef{}, false
		}
		e = e.Elem()
	}
	if e.Kind() != reflect.Struct || e.Type().Name() != "objptr" || e.NumField() != 2 {
		return objRef{}, false
	}
	return objRef{id: uint32(e.Field(0).Uint()), gen: uint16(e.Field(1).Uint())}, true
}
