#include "tuning/search.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>

namespace bc {
namespace tuning {

namespace {

// Spaces larger than this are not enumerated (no launch space comes near it).
constexpr size_t kMaxEnumerated = size_t(1) << 20;

double steady_seconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

class Searcher {
public:
    Searcher(const SearchSpace& space, const std::function<Measurement(const Point&)>& measure,
             const SearchOptions& opt)
        : space_(space), measure_(measure), opt_(opt), rng_(opt.seed) {
        now_ = opt.now ? opt.now : steady_seconds;
        start_ = now_();
    }

    bool out_of_time() const {
        return now_() - start_ >= opt_.budget_seconds || (opt_.max_trials && res_.trials.size() >= opt_.max_trials);
    }

    // Measures p once (a point is never measured twice); returns its entry.
    const Measurement& run(const Point& p) {
        auto it = seen_.find(p);
        if (it != seen_.end()) return res_.trials[it->second].m;
        Measurement m = measure_(p);
        if (!m.ok) ++res_.failed;
        seen_[p] = res_.trials.size();
        res_.trials.push_back({p, m});
        return res_.trials.back().m;
    }

    bool tried(const Point& p) const { return seen_.count(p) != 0; }

    // Every point of the space that the device's limits allow, in enumeration order.
    std::vector<Point> allowed_points() {
        std::vector<Point> out;
        size_t total = 1;
        for (const Knob& k : space_.knobs) total = k.values.empty() ? 0 : std::min(kMaxEnumerated, total * k.values.size());
        res_.space = total;
        if (total == 0) return out;
        std::vector<size_t> idx(space_.knobs.size(), 0);
        for (size_t n = 0; n < total; ++n) {
            Point p(space_.knobs.size());
            for (size_t i = 0; i < p.size(); ++i) p[i] = space_.knobs[i].values[idx[i]];
            std::string why;
            if (!space_.allowed || space_.allowed(p, &why)) out.push_back(p);
            else ++res_.pruned;
            for (size_t i = idx.size(); i-- > 0;) {  // odometer
                if (++idx[i] < space_.knobs[i].values.size()) break;
                idx[i] = 0;
            }
        }
        return out;
    }

    // The allowed neighbours of p: one knob moved to the value before or after its own.
    std::vector<Point> neighbours(const Point& p, const std::vector<Point>& allowed) const {
        std::vector<Point> out;
        for (size_t i = 0; i < p.size(); ++i) {
            const std::vector<int64_t>& v = space_.knobs[i].values;
            const auto at = std::find(v.begin(), v.end(), p[i]);
            if (at == v.end()) continue;
            for (int step : {-1, 1}) {
                const long j = static_cast<long>(at - v.begin()) + step;
                if (j < 0 || j >= static_cast<long>(v.size())) continue;
                Point q = p;
                q[i] = v[static_cast<size_t>(j)];
                if (std::find(allowed.begin(), allowed.end(), q) != allowed.end()) out.push_back(q);
            }
        }
        return out;
    }

    // Steps between two points: the sum over knobs of how far apart their values are listed
    // (a value not listed counts as one step from every other).
    size_t distance(const Point& a, const Point& b) const {
        size_t d = 0;
        for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
            const std::vector<int64_t>& v = space_.knobs[i].values;
            const auto ia = std::find(v.begin(), v.end(), a[i]), ib = std::find(v.begin(), v.end(), b[i]);
            if (ia == v.end() || ib == v.end()) d += a[i] != b[i];
            else d += static_cast<size_t>(std::abs(ia - ib));
        }
        return d;
    }

    // The fastest passing point measured so far; false when none passed.
    bool best_so_far(Point* p, double* rate) const {
        bool any = false;
        for (const Trial& t : res_.trials) {
            if (t.m.ok && (!any || t.m.rate > *rate)) {
                *p = t.point;
                *rate = t.m.rate;
                any = true;
            }
        }
        return any;
    }

    SearchResult go(const Point& baseline) {
        res_.baseline = baseline;
        std::vector<Point> allowed = allowed_points();
        res_.baseline_m = run(baseline);
        bool cut = false;
        if (allowed.size() <= opt_.exhaustive_max) {
            res_.strategy = "exhaustive";
            // nearest the baseline first: a budget that runs out (compiles are slow on some
            // platforms) has measured the likeliest neighbours of a good point
            std::vector<Point> order = allowed;
            std::stable_sort(order.begin(), order.end(), [&](const Point& a, const Point& b) {
                return distance(a, baseline) < distance(b, baseline);
            });
            for (const Point& p : order) {
                if (out_of_time()) { cut = true; break; }
                run(p);
            }
        } else {
            res_.strategy = "sampled + local";
            std::vector<Point> order = allowed;
            std::shuffle(order.begin(), order.end(), rng_);
            const double sample_end = start_ + opt_.budget_seconds * opt_.sample_share;
            for (const Point& p : order) {
                if (out_of_time()) { cut = true; break; }
                if (now_() >= sample_end) break;
                run(p);
            }
            // Local search: move to the best neighbour while one is better.
            Point at;
            double rate = 0;
            while (best_so_far(&at, &rate) && !cut) {
                bool moved = false;
                for (const Point& q : neighbours(at, allowed)) {
                    if (tried(q)) continue;
                    if (out_of_time()) { cut = true; break; }
                    const Measurement& m = run(q);
                    if (m.ok && m.rate > rate) moved = true;
                }
                if (!moved) break;
            }
        }
        if (cut) res_.strategy += " (budget spent)";
        Point best;
        double rate = 0;
        res_.best = res_.baseline_m.ok ? baseline : Point{};
        res_.best_rate = res_.baseline_m.ok ? res_.baseline_m.rate : 0;
        if (best_so_far(&best, &rate) &&
            (!res_.baseline_m.ok || (best != baseline && rate >= res_.baseline_m.rate * opt_.min_gain))) {
            res_.best = best;
            res_.best_rate = rate;
        }
        res_.seconds = now_() - start_;
        return res_;
    }

private:
    const SearchSpace& space_;
    const std::function<Measurement(const Point&)>& measure_;
    const SearchOptions& opt_;
    std::mt19937_64 rng_;
    std::function<double()> now_;
    double start_ = 0;
    std::map<Point, size_t> seen_;
    SearchResult res_;
};

}  // namespace

SearchResult search(const SearchSpace& space, const Point& baseline,
                    const std::function<Measurement(const Point&)>& measure, const SearchOptions& opt) {
    return Searcher(space, measure, opt).go(baseline);
}

Measurement median_of(const std::function<Measurement()>& once, int warmup, int runs) {
    for (int i = 0; i < warmup; ++i) {
        Measurement m = once();
        if (!m.ok) return m;
    }
    std::vector<double> rates;
    for (int i = 0; i < std::max(1, runs); ++i) {
        Measurement m = once();
        if (!m.ok) return m;
        rates.push_back(m.rate);
    }
    std::sort(rates.begin(), rates.end());
    Measurement out;
    out.ok = true;
    const size_t n = rates.size();
    out.rate = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
    return out;
}

std::string describe(const SearchSpace& space, const Point& p) {
    std::string s;
    for (size_t i = 0; i < p.size() && i < space.knobs.size(); ++i) {
        if (!s.empty()) s += ' ';
        s += space.knobs[i].name + "=" + std::to_string(p[i]);
    }
    return s;
}

}  // namespace tuning
}  // namespace bc
