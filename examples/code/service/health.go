package service

import (
	"encoding/json"
	"net/http"
	"time"
)

// Health reports whether the inventory service can answer requests.
type Health struct {
	Status  string    `json:"status"`
	Checked time.Time `json:"checked"`
}

// HealthHandler answers GET /health with the current status.
func HealthHandler(ready func() bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status := "ok"
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if ready == nil || !ready() {
			status = "starting"
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(Health{Status: status, Checked: time.Now().UTC()})
	}
}
