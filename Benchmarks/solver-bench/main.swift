// How often seeded Klondike deals are winnable, and how fast the solver decides them.
//
//     swift run -c release solver-bench [--seeds N] [--draw 1|3] [--budget NODES] [--first SEED] [--show-undecided] [--verbose]
//
// Deals seeds FIRST ..< FIRST+N (default 0 ..< 10,000) with the protocol's SplitMix64
// shuffle and solves each from the deal, in draw 1 and draw 3 unless --draw names one.
// Prints, per draw: the shares winnable, unwinnable and undecided at the budget, a 95%
// confidence interval on the winnable share, the median, p99 and maximum time per deal
// (wall clock, and this thread's CPU time, the figure to read on a shared machine), and
// positions expanded per second. It prints figures; it is not a pass/fail test.
import Core
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Options {
    var seeds = 10_000
    var draws = [1, 3]
    var budget = KlondikeSolver.defaultBudget
    var first: UInt64 = 0
    var showUndecided = false
    var verbose = false

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            let value = rest.first
            switch flag {
            case "--seeds": seeds = Options.number(value, flag)
            case "--draw":
                let draw: Int = Options.number(value, flag)
                guard draw == 1 || draw == 3 else { Options.usage(flag) }
                draws = [draw]
            case "--budget": budget = Options.number(value, flag)
            case "--first": first = Options.number(value, flag)
            case "--show-undecided":
                showUndecided = true
                continue
            case "--verbose":
                verbose = true
                continue
            default: Options.usage(flag)
            }
            rest = rest.dropFirst()
        }
    }

    static func number<T: LosslessStringConvertible>(_ value: String?, _ flag: String) -> T {
        guard let value, let number = T(value) else { usage(flag) }
        return number
    }

    static func usage(_ flag: String) -> Never {
        print("solver-bench: bad or missing value for \(flag)")
        print("usage: solver-bench [--seeds N] [--draw 1|3] [--budget NODES] [--first SEED] [--show-undecided] [--verbose]")
        exit(2)
    }
}

/// Seconds of CPU time this thread has used.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// Wilson score interval at 95% for `k` successes in `n` trials.
func wilson(_ k: Int, _ n: Int) -> (low: Double, high: Double) {
    guard n > 0 else { return (0, 1) }
    let z = 1.959964
    let p = Double(k) / Double(n)
    let nn = Double(n)
    let centre = (p + z * z / (2 * nn)) / (1 + z * z / nn)
    let half = z * (p * (1 - p) / nn + z * z / (4 * nn * nn)).squareRoot() / (1 + z * z / nn)
    return (centre - half, centre + half)
}

func percent(_ x: Double) -> String {
    let scaled = (x * 10000).rounded() / 100
    return "\(scaled)%"
}

func milliseconds(_ x: Double) -> String {
    let ms = x * 1000
    if ms < 10 { return "\((ms * 1000).rounded() / 1000) ms" }
    return "\((ms * 10).rounded() / 10) ms"
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
print("solver-bench: seeds \(options.first)..<\(options.first + UInt64(options.seeds)), budget \(options.budget) positions a deal")
for draw in options.draws {
    var counts: [KlondikeVerdict: Int] = [:]
    var times: [Double] = []
    var cpuTimes: [Double] = []
    var totalNodes = 0
    var undecided: [UInt64] = []
    times.reserveCapacity(options.seeds)
    cpuTimes.reserveCapacity(options.seeds)
    let clock = ContinuousClock()
    let cpuStart = threadCPUSeconds()
    let wallStart = clock.now
    for i in 0..<options.seeds {
        let seed = options.first + UInt64(i)
        let start = clock.now
        let cpuBefore = threadCPUSeconds()
        let solution: KlondikeSolution
        do {
            solution = try KlondikeSolver.solve(deal: .seed(seed), draw: draw, budget: options.budget)
        } catch {
            print("seed \(seed): \(error)")
            exit(1)
        }
        times.append(seconds(clock.now - start))
        cpuTimes.append(threadCPUSeconds() - cpuBefore)
        counts[solution.verdict, default: 0] += 1
        totalNodes += solution.nodes
        if solution.verdict == .unknown { undecided.append(seed) }
        if options.verbose {
            print("seed \(seed) draw \(draw): \(solution.verdict) \(solution.nodes) positions \(milliseconds(times[times.count - 1])) \(solution.moves.count) gestures")
        }
        if (i + 1) % 1000 == 0 {
            let won = counts[.winnable, default: 0]
            progress("draw \(draw): \(i + 1) deals, \(won) winnable, \(undecided.count) undecided")
        }
    }
    let cpu = threadCPUSeconds() - cpuStart
    let wall = seconds(clock.now - wallStart)
    let n = options.seeds
    let won = counts[.winnable, default: 0]
    let lost = counts[.unwinnable, default: 0]
    let open = counts[.unknown, default: 0]
    let interval = wilson(won, n)
    func quantile(_ sorted: [Double], _ q: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
    }
    let sorted = times.sorted()
    let sortedCPU = cpuTimes.sorted()
    print("")
    print("draw \(draw): \(n) deals")
    print("  winnable    \(won)  \(percent(Double(won) / Double(n)))  (95% CI \(percent(interval.low)) - \(percent(interval.high)))")
    print("  unwinnable  \(lost)  \(percent(Double(lost) / Double(n)))")
    print("  undecided   \(open)  \(percent(Double(open) / Double(n)))  (budget \(options.budget) positions)")
    print("  decided     \(percent(Double(won + lost) / Double(n)))")
    print("  wall time a deal: median \(milliseconds(quantile(sorted, 0.5))), p99 \(milliseconds(quantile(sorted, 0.99))), max \(milliseconds(sorted.last ?? 0))")
    print("  CPU time a deal:  median \(milliseconds(quantile(sortedCPU, 0.5))), p99 \(milliseconds(quantile(sortedCPU, 0.99))), max \(milliseconds(sortedCPU.last ?? 0))")
    print("  positions: \(totalNodes) in \((cpu * 10).rounded() / 10) s CPU (\((wall * 10).rounded() / 10) s wall), \(Int(Double(totalNodes) / cpu)) per CPU second")
    if options.showUndecided && !undecided.isEmpty {
        print("  undecided seeds: " + undecided.map(String.init).joined(separator: " "))
    }
}

/// A progress line on standard error, so standard output keeps only the figures.
func progress(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
