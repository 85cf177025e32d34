// What every fuzz target shares: the entry point that hands control to libFuzzer
// (or, in an ordinary build, replays input files), a reader that turns the input
// bytes into choices, and the check that turns a broken promise into a crash
// libFuzzer records. See Fuzz/README.md.
import Foundation

/// libFuzzer's callback: one input, its length; returns 0.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

#if FUZZING
// Built by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer is linked in.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzCallback
) -> CInt
#endif

/// The body of each target's `<target>_main`. Under libFuzzer it runs libFuzzer's
/// driver with the command line; in an ordinary build (which `swift build` makes of
/// every target) it runs the callback once on each file named, or on each file of
/// each folder named: a crash file or a corpus replays without the fuzzer.
public func fuzzMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ callback: FuzzCallback
) -> CInt {
    #if FUZZING
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments, callback)
    #else
    let paths = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
    var files: [String] = []
    for path in paths {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            FileHandle.standardError.write(Data("no such file: \(path)\n".utf8))
            return 2
        }
        if isFolder.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            files += names.sorted().map { path + "/" + $0 }
        } else {
            files.append(path)
        }
    }
    for file in files {
        guard let data = FileManager.default.contents(atPath: file) else { continue }
        let bytes = [UInt8](data)
        _ = bytes.withUnsafeBufferPointer { callback($0.baseAddress, $0.count) }
    }
    print("replayed \(files.count) inputs (an ordinary build: use scripts/fuzz to fuzz)")
    return 0
    #endif
}

/// A broken promise: print what broke and crash, so libFuzzer keeps the input.
public func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition() else { return }
    var text = message()
    if text.utf8.count > 4000 { text = String(text.prefix(4000)) + "..." }
    fatalError(text, file: file, line: line)
}

/// The input bytes as a stream of choices. Past the end every read gives zero, so
/// any input, however short, is a complete run.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var index = 0

    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        if let data, count > 0 {
            bytes = Array(UnsafeBufferPointer(start: data, count: count))
        } else {
            bytes = []
        }
    }

    public var isAtEnd: Bool { index >= bytes.count }
    public var remaining: Int { max(0, bytes.count - index) }

    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<n` (n at most 256 for one byte of input, more takes two).
    public mutating func int(_ n: Int) -> Int {
        precondition(n > 0)
        if n <= 256 { return Int(byte()) % n }
        return Int(UInt16(byte()) << 8 | UInt16(byte())) % n
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    public mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    public mutating func pick<T>(_ choices: [T]) -> T { choices[int(choices.count)] }

    /// A double, often a troublesome one: zero of either sign, infinities, NaN, the
    /// extremes, quarters, fractions that round, or any bit pattern.
    public mutating func double() -> Double {
        switch int(8) {
        case 0: return pick([0, -0.0, .infinity, -.infinity, .nan, .greatestFiniteMagnitude,
                             -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .ulpOfOne, 1e15, 9.007_199_254_740_993e15])
        case 1: return Double(bitPattern: uint64())
        case 2: return Double(int(2000)) / 4 - 100
        case 3: return Double(int(1_000_000)) / Double(1 + int(1000))  // fractions with no short binary form
        default: return Double(int(1200))
        }
    }

    /// A short string, often one that needs escaping in a JSON Pointer or JSON text.
    public mutating func string(maxLength: Int = 12) -> String {
        switch int(4) {
        case 0: return pick(["", "p1", "p2", "a/b", "~0~1", "~", "/", "\"", "\\", "\u{0}", "é", "👍🏽", "\u{301}"])
        default:
            let count = int(maxLength + 1)
            var out: [UInt8] = []
            for _ in 0..<count { out.append(byte()) }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
