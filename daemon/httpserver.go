package daemon

import (
	"net/http"

	"github.com/plagd/plagd/config"
)

// NewHTTPServer is the http.Server of `plagd serve` with the limits of
// http.*: slow or idle clients are disconnected instead of holding a
// connection and a goroutine forever.
//
//   - ReadHeaderTimeout: the request line and headers must arrive in time
//     (a client trickling header bytes is cut off).
//   - ReadTimeout: the whole request, body included, must arrive within
//     http.read_timeout. A body trickled one byte every few seconds is cut
//     off there. A permitted upload on a slow link would be too, so the web
//     guard extends the connection's read deadline (http.ResponseController)
//     to http.upload_timeout, but only once the caller is known to hold a
//     role that may upload and an upload slot is free: a deadline per
//     request rather than one generous timeout for everyone, which would let
//     anonymous clients hold connections as long as a real upload may take.
//   - WriteTimeout: handling plus writing the answer; it exceeds
//     extract.timeout, so a check of a slow file still answers.
//   - IdleTimeout: a keep-alive connection without a request is closed.
//   - MaxHeaderBytes: bounds the header block.
func NewHTTPServer(c config.HTTP, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
	}
}
