package pkg

import (
	"fmt"
	"os"
	"testing"

	"example.com/repo/other"
)

type row struct {
	seed, name string
	n          int
}

var rows = []row{{"000", "first one", 1}, {"001", "second", 2}}

func TestLiteral(t *testing.T) {
	t.Run("Alpha", func(t *testing.T) {
		t.Run("Inner", func(t *testing.T) {})
	})
	t.Run("Beta", func(t *testing.T) { t.Skip("never") })
}

func TestTable(t *testing.T) {
	tests := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Keyed", keyed},
		{name: "Named", fn: func(t *testing.T) { t.Run("Deep", func(*testing.T) {}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t) })
	}
}

func keyed(t *testing.T) {
	for _, r := range rows {
		t.Run(fmt.Sprintf("seed %s %s#%d", r.seed, r.name, r.n), func(*testing.T) {})
	}
}

func TestAcrossPackages(t *testing.T) { other.Suite(t) }

func TestDynamic(t *testing.T) {
	for i := range 3 {
		t.Run(fmt.Sprint(i*2), func(*testing.T) {})
	}
}

func TestSkipped(t *testing.T) {
	t.Skip("not yet")
}

func TestPrefixOne(t *testing.T) {}
func TestPrefixTwo(t *testing.T) {}

func TestOnEngine(t *testing.T) {
	if os.Getenv("ENGINE") != "mongodb" {
		t.Skip("the MongoDB tier only")
	}
}

func TestOnABroker(t *testing.T) {
	brokers := os.Getenv("KAFKA_BROKERS")
	if brokers == "" {
		t.Skip("KAFKA_BROKERS not set")
	}
}
