#include "method/guard_lines.hpp"

#include <algorithm>

namespace bf16x::method {

std::uint64_t HostLines::entries(std::int64_t m, std::int64_t n) const {
  const std::uint64_t r = rows.size(), s = cols.size();
  return r * std::uint64_t(n) + s * std::uint64_t(m) - r * s;
}

namespace {

// The unproved entries of each line, and which lines are taken.
struct LineCounts {
  std::vector<std::int64_t> row, col;
  std::vector<std::size_t> row_start, row_items;  // the entries of row i: row_items[row_start[i] .. row_start[i + 1])
  std::vector<std::size_t> col_start;             // of column j: failing[col_start[j] .. col_start[j + 1])
  std::vector<char> row_taken, col_taken;

  LineCounts(const std::vector<Entry>& failing, std::int64_t m, std::int64_t n)
      : row(std::size_t(m)),
        col(std::size_t(n)),
        row_start(std::size_t(m) + 1),
        row_items(failing.size()),
        col_start(std::size_t(n) + 1),
        row_taken(std::size_t(m)),
        col_taken(std::size_t(n)) {
    for (const Entry& e : failing) ++row[std::size_t(e.i)], ++col[std::size_t(e.j)];
    for (std::int64_t i = 0; i < m; ++i)
      row_start[std::size_t(i) + 1] = row_start[std::size_t(i)] + row[std::size_t(i)];
    for (std::int64_t j = 0; j < n; ++j)
      col_start[std::size_t(j) + 1] = col_start[std::size_t(j)] + col[std::size_t(j)];
    std::vector<std::size_t> fill(row_start.begin(), row_start.end() - 1);
    for (std::size_t e = 0; e < failing.size(); ++e) row_items[fill[std::size_t(failing[e].i)]++] = e;
  }
};

std::size_t largest(const std::vector<std::int64_t>& v) {
  return std::size_t(std::max_element(v.begin(), v.end()) - v.begin());
}

}  // namespace

bool choose_host_lines(std::vector<Entry>& failing, std::int64_t m, std::int64_t n, std::uint64_t limit,
                       HostLines& lines) {
  if (failing.size() <= limit || m <= 0 || n <= 0) return failing.size() <= limit;
  LineCounts c(failing, m, n);
  std::uint64_t remaining = failing.size();
  double host = 0;  // the lines' entries, rows n each and columns m each (an entry in both counted twice)
  while (remaining > 0) {
    const std::size_t i = largest(c.row), j = largest(c.col);
    // shares c.row[i] / n and c.col[j] / m, compared without division
    const bool take_row = double(c.row[i]) * double(m) >= double(c.col[j]) * double(n);
    const double share = take_row ? double(c.row[i]) / double(n) : double(c.col[j]) / double(m);
    if (share * 8 <= 1) break;
    if (take_row) {
      c.row_taken[i] = 1;
      for (std::size_t q = c.row_start[i]; q < c.row_start[i + 1]; ++q) {
        const Entry& e = failing[c.row_items[q]];
        if (!c.col_taken[std::size_t(e.j)]) --c.col[std::size_t(e.j)];
      }
      remaining -= std::uint64_t(c.row[i]);
      c.row[i] = 0;
      host += double(n);
    } else {
      c.col_taken[j] = 1;
      for (std::size_t q = c.col_start[j]; q < c.col_start[j + 1]; ++q) {
        const Entry& e = failing[q];
        if (!c.row_taken[std::size_t(e.i)]) --c.row[std::size_t(e.i)];
      }
      remaining -= std::uint64_t(c.col[j]);
      c.col[j] = 0;
      host += double(m);
    }
  }
  // Lines and repairs in units of one entry on the host: at most half the host's whole call, or it takes the call.
  if (host + 8 * double(remaining) > 0.5 * double(m) * double(n)) return false;
  for (std::int64_t i = 0; i < m; ++i)
    if (c.row_taken[std::size_t(i)]) lines.rows.push_back(i);
  for (std::int64_t j = 0; j < n; ++j)
    if (c.col_taken[std::size_t(j)]) lines.cols.push_back(j);
  std::erase_if(failing,
                [&](const Entry& e) { return c.row_taken[std::size_t(e.i)] || c.col_taken[std::size_t(e.j)]; });
  return true;
}

namespace {}  // namespace

template <typename T>
LineCopies<T> copy_lines(const driver::RepairArgs<T>& x, std::int64_t m, std::int64_t n, const HostLines& lines) {
  LineCopies<T> p;
  const std::int64_t r = std::int64_t(lines.rows.size()), s = std::int64_t(lines.cols.size()), k = x.k;
  const bool read_c = x.beta != T(0);
  p.a.resize(std::size_t(r * k));
  p.ca.resize(std::size_t(r * n));
  p.b.resize(std::size_t(k * s));
  p.cb.resize(std::size_t(m * s));
  for (std::int64_t q = 0; q < r; ++q) {
    const std::int64_t i = lines.rows[std::size_t(q)];
    for (std::int64_t l = 0; l < k; ++l) p.a[std::size_t(q + l * r)] = x.a(i, l);
    if (read_c)
      for (std::int64_t j = 0; j < n; ++j) p.ca[std::size_t(q + j * r)] = x.c_at(i, j);
  }
  for (std::int64_t q = 0; q < s; ++q) {
    const std::int64_t j = lines.cols[std::size_t(q)];
    for (std::int64_t l = 0; l < k; ++l) p.b[std::size_t(l + q * k)] = x.b(l, j);
    if (read_c)
      for (std::int64_t i = 0; i < m; ++i) p.cb[std::size_t(i + q * m)] = x.c_at(i, j);
  }
  return p;
}

template LineCopies<float> copy_lines(const driver::RepairArgs<float>&, std::int64_t, std::int64_t, const HostLines&);
template LineCopies<double> copy_lines(const driver::RepairArgs<double>&, std::int64_t, std::int64_t, const HostLines&);

}  // namespace bf16x::method
