package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// ApplyEnv overrides fields from environment variables. The database URL
// comes from PLAGD_DATABASE_URL or DATABASE_URL; every other field from
// PLAGD_<SECTION>_<FIELD>, the upper-cased path of its YAML keys joined by
// "_" (EnvNames lists them): PLAGD_ENGINE_MIN_SHARED=5, PLAGD_HTTP_LISTEN=:9000,
// PLAGD_DATA_DIR=/var/lib/plagd, PLAGD_EXTRACT_OCR_ENABLED=true. Lists are
// comma-separated (PLAGD_CLUSTER_NODES=a:7070,b:7070), durations Go
// durations (30s, 5m). The names follow the fields, so a field added to
// Config has its override without a line here.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv("PLAGD_DATABASE_URL"); v != "" {
		c.DatabaseURL = v
	} else if v := getenv("DATABASE_URL"); v != "" && c.DatabaseURL == "" {
		c.DatabaseURL = v
	}
	var firstErr error
	eachField(reflect.ValueOf(c).Elem(), "PLAGD", func(name string, f reflect.Value) {
		v := getenv(name)
		if v == "" || name == "PLAGD_DATABASE_URL" {
			return
		}
		if err := setField(f, v); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("environment %s=%q: %w", name, v, err)
		}
	})
	return firstErr
}

// EnvNames are the environment variables ApplyEnv reads, in the order of
// the configuration file (DATABASE_URL, read as a fallback, is not listed).
func EnvNames() []string {
	var names []string
	eachField(reflect.ValueOf(&Config{}).Elem(), "PLAGD", func(name string, _ reflect.Value) {
		names = append(names, name)
	})
	return names
}

var durationType = reflect.TypeFor[time.Duration]()

// eachField calls fn for every leaf field of the struct v (sections are
// walked into), named prefix_<YAML key path>, upper-cased.
func eachField(v reflect.Value, prefix string, fn func(name string, f reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		name := prefix + "_" + strings.ToUpper(key)
		f := v.Field(i)
		if f.Kind() == reflect.Struct && f.Type() != durationType {
			eachField(f, name, fn)
			continue
		}
		fn(name, f)
	}
}

// setField parses v into f by f's type.
func setField(f reflect.Value, v string) error {
	switch {
	case f.Type() == durationType:
		d, err := time.ParseDuration(v)
		f.SetInt(int64(d))
		return err
	case f.Kind() == reflect.String:
		f.SetString(v)
	case f.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(v)
		f.SetBool(b)
		return err
	case f.Kind() >= reflect.Int && f.Kind() <= reflect.Int64:
		n, err := strconv.ParseInt(v, 10, f.Type().Bits())
		f.SetInt(n)
		return err
	case f.Kind() >= reflect.Uint && f.Kind() <= reflect.Uint64:
		n, err := strconv.ParseUint(v, 10, f.Type().Bits())
		f.SetUint(n)
		return err
	case f.Kind() == reflect.Float64:
		x, err := strconv.ParseFloat(v, 64)
		f.SetFloat(x)
		return err
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		f.Set(reflect.ValueOf(splitList(v)))
	default:
		return fmt.Errorf("plagd cannot read a %s from the environment", f.Type())
	}
	return nil
}

// splitList reads a comma-separated environment value.
func splitList(v string) []string {
	out := []string{}
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
