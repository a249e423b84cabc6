package game

import "testing"

// TestPhaseMoves: every move of the client's lifecycle, allowed or refused, and what a refused
// move leaves (the phase it came from).
func TestPhaseMoves(t *testing.T) {
	allowed := map[[2]phase]bool{
		{phaseConnecting, phaseChallenged}:    true, // the server asks for the seat's secret
		{phaseConnecting, phaseAdmitted}:      true, // a PlayerInfo names this player, or a Spectate comes
		{phaseConnecting, phaseAwaitingWorld}: true, // a spectator's StartGame overtook its Spectate (a running game)
		{phaseConnecting, phaseRunning}:       true, // the same, at the start
		{phaseChallenged, phaseAdmitted}:      true, // proved: the seat is its again
		{phaseAdmitted, phaseAwaitingWorld}:   true, // StartGame of a running game
		{phaseAdmitted, phaseRunning}:         true, // StartGame at frame 0
		{phaseAwaitingWorld, phaseRunning}:    true, // the batch with the world's state
		{phaseRunning, phasePaused}:           true, // the world reached a stop-the-world's frame
		{phaseRunning, phaseAwaitingWorld}:    true, // a spectator's own copy of the world begins
		{phasePaused, phaseRunning}:           true, // resumed
	}
	for from := range numPhases {
		for to := range numPhases {
			want := from == to || allowed[[2]phase{from, to}] || (to == phaseEnded && from != phaseEnded)
			got, err := from.next(to)
			switch {
			case want && (err != nil || got != to):
				t.Errorf("%v → %v: %v, %v; want allowed", from, to, got, err)
			case !want && (err == nil || got != from):
				t.Errorf("%v → %v: %v, %v; want refused, staying %v", from, to, got, err, from)
			}
		}
	}
	if _, err := phaseRunning.next(numPhases); err == nil {
		t.Error("a move to no phase was allowed")
	}
}

// TestPhaseRefusesASecondStart: a StartGame to a client that runs its game already is a bad
// message, and changes nothing: the world stays, and so does the phase.
func TestPhaseRefusesASecondStart(t *testing.T) {
	c := startedOfflineClient(t)
	w, f := c.w, c.w.Frame()
	bad := c.stats.BadMessages
	deliver(t, c, &StartGame{Map: w.MapName(), Seed: 9, Frame: 0, FrameMillis: 100, LeadFrames: 1})
	if c.w != w || c.w.Frame() != f || c.phase != phaseRunning || c.stats.BadMessages != bad+1 {
		t.Errorf("after a second StartGame: world replaced %v, frame %d (was %d), phase %v, bad messages %d (was %d)",
			c.w != w, c.w.Frame(), f, c.phase, c.stats.BadMessages, bad)
	}
}
