import Testing
@testable import Realtime
import Core

@Suite struct PlaceholderTests {
    @Test func shorthandTap() {
        #expect(ClientMessageParser.parse(Array("tap stock".utf8))
            == .request(ClientRequest(id: nil, command: .gesture(type: "tap", message: .object(["type": "tap", "target": "stock"])))))
    }
}
