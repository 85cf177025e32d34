/// An HTTP answer.
struct HTTPResponse: Sendable, Equatable {
    var status: UInt32
    var contentType: String
    var body: [UInt8]

    init(status: UInt32, contentType: String, body: String) {
        self.status = status
        self.contentType = contentType
        self.body = Array(body.utf8)
    }

    static func text(_ status: UInt32, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain", body: body)
    }

    static func json(_ body: String) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/json", body: body)
    }
}
