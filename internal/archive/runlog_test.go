package archive_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/archive"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// TestArchiverRunLogsAtInfoOnlyWhenItArchived: a run with nothing due logs
// "archiver run finished" at debug, so a schedule stays quiet at info; a
// run that archived logs at info how many.
func TestArchiverRunLogsAtInfoOnlyWhenItArchived(t *testing.T) {
	for _, tc := range []struct {
		name  string
		due   int
		level string
	}{
		{name: "idle", due: 0, level: "DEBUG"},
		{name: "archived three events", due: 3, level: "INFO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := storetest.NewClock()
			s := storetest.Open(t, store.Config{Now: clock.Now, EventTTL: 90 * day})
			for range tc.due {
				insertPublished(t, s, newEvent(t))
			}
			clock.Advance(91 * day)
			insertPublished(t, s, newEvent(t)) // not due in either case
			var logs testenv.Output
			a, err := archive.New(archive.Config{Store: s, Logger: logs.DebugLogger()})
			require.NoError(t, err)
			_, err = a.Run(t.Context())
			require.NoError(t, err)

			rec := logs.Record(t, "archiver run finished")
			assert.Equal(t, tc.level, rec["level"])
			assert.EqualValues(t, tc.due, rec["archived"])
		})
	}
}
