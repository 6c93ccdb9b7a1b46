package server

import (
	"fmt"
	"net/http"
)

// checkModel refuses a request for a model this server does not serve,
// with 404 and the model it does serve, as OpenAI's API and vLLM answer.
// An empty name (clients that send none, such as the trainer's rollout
// fleet) means the served model.
func (s *Server) checkModel(name string) error {
	if name == "" || name == s.name {
		return nil
	}
	return &apiError{status: http.StatusNotFound, param: "model",
		msg: fmt.Sprintf("the model %q does not exist: this server serves %q (GET /v1/models lists it)", name, s.name)}
}
