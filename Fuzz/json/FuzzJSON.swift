// The JSON text parser: `JSONText.parse` never crashes on any bytes, and whatever it
// accepts re-encodes (`JSON.encoded`) to text that parses to the same value, which
// encodes to the same text again. Client frames use the variant that reads numbers
// too large for a Double as infinities: that one must never crash either.
import Core
import FuzzSupport
import Realtime

@_cdecl("fuzz_json_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzMain(argc, argv, fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let value: JSON
    do {
        value = try JSONText.parse(bytes)
    } catch {
        // Refused: the lenient reading of frames must refuse it too, unless only a huge number was wrong.
        if (try? JSONText.parseAllowingHugeNumbers(bytes)) != nil {
            require(error.reason == .numberOutOfRange, "only parseAllowingHugeNumbers accepts \(printable(bytes)): \(error)")
        }
        require(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the \(bytes.count) bytes")
        _ = error.description
        return 0
    }
    // Accepted: the lenient reading agrees, and the encoding round-trips.
    require((try? JSONText.parseAllowingHugeNumbers(bytes)) == value, "the two readings of \(printable(bytes)) differ")
    let text = value.encoded
    let again: JSON
    do {
        again = try JSONText.parse(text)
    } catch {
        require(false, "\(printable(bytes)) encodes as \(text), which does not parse: \(error)")
        return 0
    }
    require(again == value, "\(printable(bytes)) encodes as \(text), which parses to \(again.encoded)")
    require(again.encoded == text, "\(text) re-encodes as \(again.encoded)")
    // The String and raw-buffer entry points read the same bytes the same way.
    require((try? JSONText.parse(text)) == (try? text.utf8.withContiguousStorageIfAvailable {
        try JSONText.parse(UnsafeRawBufferPointer($0))
    }), "the entry points disagree on \(text)")
    return 0
}

func printable(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription
}
