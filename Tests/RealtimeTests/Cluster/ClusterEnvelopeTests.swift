import Core
import Testing
@testable import Realtime

/// The exact bytes of every message between nodes, and that each reads back as itself:
/// typed envelopes, never a frame read back to learn what it is.
@Suite struct ClusterEnvelopeTests {
    private func golden(_ envelope: ClusterEnvelope, _ text: String) {
        #expect(String(decoding: envelope.bytes, as: UTF8.self) == text)
        #expect(ClusterEnvelope.parse(Array(text.utf8)) == envelope)
    }

    @Test func forwardCarriesTheMessageAsItIs() {
        golden(.forward(from: "node-b", connection: 4_294_967_303, request: 12, expires: 1_800_000_003_000,
                        message: Array(#"{"type":"tap","a":"|"}"#.utf8)),
               #"F|node-b|4294967303|12|1800000003000|{"type":"tap","a":"|"}"#)
    }

    @Test func detachAndAPIRequest() {
        golden(.detach(from: "node-b", connection: 7), "C|node-b|7")
        golden(.apiRequest(from: "node-c", token: 3, game: "ab12cd34"), "H|node-c|3|ab12cd34")
    }

    @Test func repliesSayWhatTheirFrameIs() {
        golden(.reply(connection: 7, kind: .joined(game: "ab12cd34", kind: "race", player: "p2"), frame: Array("{}".utf8)),
               "R|7|j:ab12cd34:race:p2|{}")
        golden(.reply(connection: 7, kind: .joined(game: "ab12cd34", kind: "plane", player: nil), frame: []),
               "R|7|j:ab12cd34:plane:-|")
        golden(.reply(connection: 7, kind: .diff(seq: 41), frame: Array("x|y".utf8)), "R|7|d:41|x|y")
        golden(.reply(connection: 7, kind: .answer, frame: Array("{}".utf8)), "R|7|a|{}")
        golden(.reply(connection: 7, kind: .left(game: "ab12cd34"), frame: Array("{}".utf8)), "R|7|l:ab12cd34|{}")
        golden(.reply(connection: 7, kind: .plain, frame: Array("{}".utf8)), "R|7|p|{}")
    }

    @Test func doneSubscribedAndAPIAnswer() {
        golden(.done(connection: 7, request: 12), "D|7|12")
        golden(.subscribed(connection: 7, game: "ab12cd34", audience: "~", seq: 5), "S|7|ab12cd34|~|5")
        golden(.subscribed(connection: 7, game: "ab12cd34", audience: "p2", seq: 5), "S|7|ab12cd34|p2|5")
        golden(.apiAnswer(token: 3, status: 404, body: Array("no game\n".utf8)), "A|3|404|no game\n")
        golden(.forgotten(from: "node-b"), "G|node-b")
    }

    @Test func publicationsCarryEveryViewsFrame() {
        let publication = Publication(isDiff: true, seq: 9, parts: [
            .init(views: ["*", "p1"], frame: Array("ab".utf8)), .init(views: ["p2"], frame: Array("c|d".utf8)),
        ])
        #expect(String(decoding: publication.bytes, as: UTF8.self) == "d|9|2|*,p1|2|abp2|3|c|d")
        #expect(Publication.parse(publication.bytes) == publication)
        let presence = Publication(isDiff: false, seq: 9, parts: [.init(views: ["all"], frame: Array("{}".utf8))])
        #expect(String(decoding: presence.bytes, as: UTF8.self) == "a|9|1|all|2|{}")
        let late = Publication(isDiff: true, seq: 4, parts: [.init(views: ["~"], frame: Array("x".utf8))], delayed: true)
        #expect(String(decoding: late.bytes, as: UTF8.self) == "D|4|1|~|1|x")
        #expect(Publication.parse(late.bytes) == late)
        let lateChat = Publication(isDiff: false, seq: 4, parts: [.init(views: ["~"], frame: Array("c".utf8))], delayed: true)
        #expect(String(decoding: lateChat.bytes, as: UTF8.self) == "A|4|1|~|1|c")
    }

    @Test func malformedBytesAreNothing() {
        for bad in ["", "F", "F|", "F|n|x|1|", "F|n|7|1|{}", "F|n|7|1|x|{}", "C|n|7|extra", "R|7|q|{}", "R|7|d:x|{}", "D|7", "S|7|g|x", "S|7|g|*|x", "Z|1", "A|x|200|"] {
            #expect(ClusterEnvelope.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
        for bad in ["d|1|0|", "d|1|1|*|9|ab", "x|1|1|*|0|", "d|1"] {
            #expect(Publication.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
