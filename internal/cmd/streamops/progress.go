package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/status"
)

// isTerminal reports whether w is a terminal, where the progress bar
// redraws one line; a variable so tests can say either.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// plainEvery is how often a progress line is printed when the output is
// not a terminal and no 10 % step was crossed.
const plainEvery = 5 * time.Second

// barCells is the width of the bar itself.
const barCells = 30

// progressBar renders a replay session's progress as one line. On a
// terminal it redraws that line in place (\r) on every update; otherwise
// (a log, a pipe, CI) it prints a line on each 10 % step and at most every
// plainEvery in between, so a log holds a few lines, not one per poll.
// It is a renderer, not a counter: the rate and time left are the API's
// (GET /api/replays/{id} measures them where the work runs).
type progressBar struct {
	w        io.Writer
	tty      bool
	now      func() time.Time
	drawn    int       // length of the line on screen (tty)
	step     int       // last 10 % step printed (plain), -1 before the first
	printed  time.Time // when the last plain line was printed
	lastLine string
}

func newProgressBar(w io.Writer, tty bool) *progressBar {
	return &progressBar{w: w, tty: tty, now: time.Now, step: -1}
}

// update shows s's progress.
func (p *progressBar) update(s replaySession) {
	line := progressLine(s)
	if p.tty {
		p.redraw(line)
		return
	}
	step := int(math.Floor(progressOf(s).Percent / 10)) // 0 to 10
	if step > p.step || (line != p.lastLine && p.now().Sub(p.printed) >= plainEvery) {
		fmt.Fprintln(p.w, line)
		p.step, p.printed, p.lastLine = max(step, p.step), p.now(), line
	}
}

// finish shows s's last line and ends it.
func (p *progressBar) finish(s replaySession) {
	line := progressLine(s)
	if p.tty {
		p.redraw(line)
		fmt.Fprintln(p.w)
		p.drawn = 0
		return
	}
	if line != p.lastLine {
		fmt.Fprintln(p.w, line)
		p.lastLine = line
	}
}

// interrupt ends the line on screen so a message can follow it.
func (p *progressBar) interrupt() {
	if p.tty && p.drawn > 0 {
		fmt.Fprintln(p.w)
		p.drawn = 0
	}
}

// redraw writes line over the one on screen, blanking what is left of a
// longer one.
func (p *progressBar) redraw(line string) {
	pad := max(p.drawn-len(line), 0)
	fmt.Fprint(p.w, "\r"+line+strings.Repeat(" ", pad))
	p.drawn = len(line)
}

// progressLine is s's progress in one line:
//
//	replay-… running [=========>                    ] 512/1000  51.2%  20.0/s  ETA 24s  failed 0
func progressLine(s replaySession) string {
	pr := progressOf(s)
	filled := 0
	if pr.Total > 0 {
		filled = int(float64(barCells) * float64(min(pr.Done, pr.Total)) / float64(pr.Total))
	} else if s.Status == status.ReplayCompleted {
		filled = barCells
	}
	bar := strings.Repeat("=", filled)
	if filled < barCells {
		if filled > 0 {
			bar = bar[:filled-1] + ">"
		}
		bar += strings.Repeat(" ", barCells-filled)
	}
	line := fmt.Sprintf("%s %s [%s] %d/%d %5.1f%%  %.1f/s", s.SessionID, s.Status, bar, pr.Done, pr.Total, pr.Percent, pr.RatePerSecond)
	if pr.ETASeconds != nil && s.Status == status.ReplayRunning {
		line += "  ETA " + formatETA(*pr.ETASeconds)
	}
	return line + fmt.Sprintf("  failed %d", s.FailedEvents)
}

// progressOf is s's progress, derived from its counts when the API did
// not give it (one older than the progress field).
func progressOf(s replaySession) httpapi.ReplayProgress {
	pr := s.Progress
	if pr.Total == 0 && s.TotalEvents > 0 {
		pr.Done, pr.Total = s.ReplayedEvents+s.FailedEvents, s.TotalEvents
		pr.Percent = float64(pr.Done) * 100 / float64(pr.Total)
	}
	return pr
}

// formatETA is seconds as a duration to the second: 24s, 3m5s, 2h0m0s.
func formatETA(seconds float64) string {
	return (time.Duration(math.Round(seconds)) * time.Second).String()
}
