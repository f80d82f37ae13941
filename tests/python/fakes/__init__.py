"""Local fake HTTP servers for the model APIs (stdlib http.server in a thread, on 127.0.0.1).
The real SDK clients talk to them, so the tests exercise the SDKs' own request building, error
classes, headers and timeouts."""
