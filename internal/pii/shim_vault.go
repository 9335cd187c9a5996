package pii

// TEMPORARY: the lead's stand-in for helper A's API until it merges.

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

type Category string

const (
	CategoryEmail    Category = "email"
	CategoryPhone    Category = "phone"
	CategoryCard     Category = "card"
	CategoryIBAN     Category = "iban"
	CategoryName     Category = "name"
	CategoryIP       Category = "ip"
	CategoryPersonal Category = "personal"
)

type Finding struct {
	Category Category
	Value    string
	Whole    bool
	Key      string
}

type Replacer func(Finding) (string, error)

type Reference struct {
	Category        Category
	Subject, Sealed string
}

func (r Reference) String() string {
	return "pii:" + string(r.Category) + ":" + r.Subject + ":" + r.Sealed
}

var refRE = regexp.MustCompile(`pii:[a-z_]{2,20}:[a-z2-7]{26}(\.[0-9]{1,6})?:[A-Za-z0-9_-]{16,}`)

func ParseReference(s string) (Reference, bool) {
	if loc := refRE.FindStringIndex(s); loc == nil || loc[0] != 0 || loc[1] != len(s) {
		return Reference{}, false
	}
	p := strings.SplitN(s, ":", 4)
	return Reference{Category: Category(p[1]), Subject: p[2], Sealed: p[3]}, true
}

func FindReference(s string, from int) (int, int) {
	loc := refRE.FindStringIndex(s[from:])
	if loc == nil {
		return -1, -1
	}
	return from + loc[0], from + loc[1]
}

func (s *Scrubber) Findings(doc []byte) ([]Finding, error) {
	var out []Finding
	_, err := s.Replace(doc, func(f Finding) (string, error) { out = append(out, f); return "x", nil })
	return out, err
}

func (s *Scrubber) Replace(doc []byte, r Replacer) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var walk func(v any, key string) (any, error)
	walk = func(v any, key string) (any, error) {
		if key != "" {
			if _, ok := s.deny[NormaliseKey(key)]; ok && v != nil {
				if str, ok := v.(string); ok {
					if _, ok := ParseReference(str); ok {
						return v, nil
					}
				}
				raw, _ := json.Marshal(v)
				cat := CategoryPersonal
				if strings.Contains(NormaliseKey(key), "email") {
					cat = CategoryEmail
				} else if strings.Contains(NormaliseKey(key), "phone") {
					cat = CategoryPhone
				} else if strings.Contains(NormaliseKey(key), "name") {
					cat = CategoryName
				}
				return r(Finding{Category: cat, Value: string(raw), Whole: true, Key: NormaliseKey(key)})
			}
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				n, err := walk(e, k)
				if err != nil {
					return nil, err
				}
				x[k] = n
			}
		case []any:
			for i, e := range x {
				n, err := walk(e, "")
				if err != nil {
					return nil, err
				}
				x[i] = n
			}
		case string:
			if _, ok := ParseReference(x); ok {
				return x, nil
			}
			for _, p := range Patterns {
				var b strings.Builder
				last := 0
				for from := 0; from < len(x); {
					st, en := p.Find(x, from)
					if st < 0 {
						break
					}
					rep, err := r(Finding{Category: Category(p.Name), Value: x[st:en], Key: NormaliseKey(key)})
					if err != nil {
						return nil, err
					}
					b.WriteString(x[last:st])
					b.WriteString(rep)
					last, from = en, en
				}
				if last > 0 {
					b.WriteString(x[last:])
					x = b.String()
				}
			}
			return x, nil
		}
		return v, nil
	}
	v, err := walk(v, "")
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func CategoryNames() []string {
	return []string{"email", "phone", "card", "iban", "name", "ip", "personal"}
}
func KnownCategory(c Category) bool {
	for _, n := range CategoryNames() {
		if n == string(c) {
			return true
		}
	}
	return false
}
