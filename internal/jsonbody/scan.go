package jsonbody

// The skips below read JSON bytes without decoding them, for code that
// needs to find a value's end fast (events' check for unknown members, the
// PII scrubber's copy-on-write walk). Each returns -1 when doc ends inside
// what it skips; on a document json.Valid accepted that never happens.

// SkipSpace is the index of the first byte of doc from i on that is not
// JSON whitespace.
func SkipSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// SkipString is the index just past the JSON string starting at doc[i] (a
// '"'), or -1.
func SkipString(doc []byte, i int) int {
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// SkipLiteral is the index just past the number, true, false or null
// starting at doc[i].
func SkipLiteral(doc []byte, i int) int {
	for ; i < len(doc); i++ {
		switch doc[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// SkipValue is the index just past the JSON value starting at doc[i], or
// -1.
func SkipValue(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		return SkipString(doc, i)
	case '{', '[':
		depth := 0
		for i < len(doc) {
			switch doc[i] {
			case '"':
				if i = SkipString(doc, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	return SkipLiteral(doc, i)
}
