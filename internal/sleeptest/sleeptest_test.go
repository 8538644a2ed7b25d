package sleeptest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestRecorder(t *testing.T) {
	var r Recorder
	if err := r.Sleep(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Sleep(ctx, 2*time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on an ended context: got %v; want context.Canceled", err)
	}
	got := r.Waits()
	if want := []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("Waits = %v; want %v", got, want)
	}
	got[0] = 0
	if r.Waits()[0] != time.Second {
		t.Error("Waits returned the recorder's own slice")
	}
}
