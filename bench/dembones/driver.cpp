// Dem Bones (Electronic Arts, BSD-3-Clause; https://github.com/electronicarts/dem-bones) on the
// bake problem bench/dembones/export.ts writes: corskin's issue-29 comparison. Header-only core,
// no FBX/Alembic: the samples are read from plain binary files. Built without OpenMP (one thread).
//
//   driver <dir> <free|locked|locked-w> <out.f32>
//
//   free      plain Dem Bones: J + H bones, all free, weights and transforms from its own
//             clustering (LBG-VQ), as `DemBones -b=<J+H>` does.
//   locked    the J skeleton joints locked to the clip's skinning matrices (lockM = 1, the
//             app's `demLock`), the H extra bones free, started at corskin's helper start;
//             weights from Dem Bones' own init (each vertex bound to its best-fitting bone).
//   locked-w  as locked, weights started from the original skin (a helper's cluster members:
//             half the original weights, half the helper).
//
// Convergence as the DemBones app: at most 100 iterations, stop when the RMSE falls by less than
// 1e-3 of itself in 3 consecutive iterations. Writes the reconstruction (T × n × 3 float32) and
// prints one line of results.
#include <DemBones/DemBones.h>
#include <DemBones/MatBlocks.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace Dem;
using Eigen::MatrixXd;

template <class T>
static std::vector<T> readAll(const std::string& path, size_t count) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::vector<T> v(count);
  f.read(reinterpret_cast<char*>(v.data()), count * sizeof(T));
  if (size_t(f.gcount()) != count * sizeof(T)) throw std::runtime_error(path + ": short file");
  return v;
}

class Bench : public DemBones<double, float> {
 public:
  double tolerance = 1e-3;
  int patience = 3, np = 3, iterations = 0;
  double prevErr = -1;
  bool cbIterEnd() override {
    iterations = iter + 1;
    double err = rmse();
    std::fprintf(stderr, "  iter %d: rmse %.6g\n", iter, err);
    if (err < prevErr * (1 + weightEps) && (prevErr - err) < tolerance * prevErr) {
      if (--np == 0) return true;
    } else
      np = patience;
    prevErr = err;
    return false;
  }
};

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <dir> <free|locked|locked-w> <out.f32>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1], mode = argv[2], out = argv[3];
  if (mode != "free" && mode != "locked" && mode != "locked-w") {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  int n, J, T, H, K, tris;
  {
    std::ifstream s(dir + "/sizes.txt");
    if (!(s >> n >> J >> T >> H >> K >> tris)) throw std::runtime_error("bad sizes.txt");
  }
  auto rest = readAll<float>(dir + "/rest.f32", 3 * size_t(n));
  auto triangles = readAll<uint32_t>(dir + "/triangles.u32", 3 * size_t(tris));
  auto targets = readAll<float>(dir + "/targets.f32", size_t(T) * 3 * n);
  auto fixed = readAll<double>(dir + "/fixed.f64", size_t(T) * 16 * J);
  auto start = readAll<double>(dir + "/helper-start.f64", size_t(T) * 16 * H);
  auto joints = readAll<uint32_t>(dir + "/joints.u32", size_t(K) * n);
  auto weights = readAll<float>(dir + "/weights.f32", size_t(K) * n);
  auto clusters = readAll<int32_t>(dir + "/clusters.i32", size_t(n));

  Bench db;
  db.nIters = 100;
  db.nnz = K;
  db.nV = n;
  db.nS = 1;
  db.nF = T;
  db.fStart.resize(2);
  db.fStart << 0, T;
  db.subjectID = Eigen::VectorXi::Zero(T);
  db.u.resize(3, n);
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) db.u(c, i) = rest[3 * i + c];
  db.v.resize(3 * T, n);
  for (int k = 0; k < T; k++)
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 3; c++) db.v(3 * k + c, i) = targets[(size_t(k) * n + i) * 3 + c];
  db.fv.resize(tris);
  for (int t = 0; t < tris; t++)
    db.fv[t] = {int(triangles[3 * t]), int(triangles[3 * t + 1]), int(triangles[3 * t + 2])};
  db.nB = J + H;

  if (mode != "free") {
    // Column-major 4×4 (corskin) → Eigen blocks.
    db.m.resize(4 * T, 4 * db.nB);
    for (int k = 0; k < T; k++) {
      for (int j = 0; j < J; j++)
        db.m.blk4(k, j) = Eigen::Map<const Eigen::Matrix4d>(&fixed[(size_t(k) * J + j) * 16]);
      for (int h = 0; h < H; h++)
        db.m.blk4(k, J + h) = Eigen::Map<const Eigen::Matrix4d>(&start[(size_t(k) * H + h) * 16]);
    }
    db.lockM = Eigen::VectorXi::Zero(db.nB);
    db.lockM.head(J).setOnes();
    if (mode == "locked-w") {
      std::vector<Eigen::Triplet<double>> trip;
      for (int i = 0; i < n; i++) {
        double keep = clusters[i] >= 0 ? 0.5 : 1.0;
        for (int k = 0; k < K; k++)
          if (weights[K * i + k] > 0) trip.emplace_back(joints[K * i + k], i, keep * weights[K * i + k]);
        if (clusters[i] >= 0) trip.emplace_back(J + clusters[i], i, 0.5);
      }
      db.w.resize(db.nB, n);
      db.w.setFromTriplets(trip.begin(), trip.end());
    }
  }

  auto t0 = std::chrono::steady_clock::now();
  db.init();
  int bonesAfterInit = db.nB;
  db.compute();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Reconstruction: Σ_j w_ij m_kj u_i.
  std::vector<float> recon(size_t(T) * 3 * n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < T; k++) {
      Eigen::Vector3d p = Eigen::Vector3d::Zero();
      for (Eigen::SparseMatrix<double>::InnerIterator it(db.w, i); it; ++it)
        p += it.value() * (db.m.rotMat(k, it.row()) * db.u.col(i) + db.m.transVec(k, it.row()));
      for (int c = 0; c < 3; c++) recon[(size_t(k) * n + i) * 3 + c] = float(p(c));
    }
  std::ofstream f(out, std::ios::binary);
  f.write(reinterpret_cast<const char*>(recon.data()), recon.size() * sizeof(float));
  int maxNnz = 0;
  for (int i = 0; i < n; i++) {
    int c = 0;
    for (Eigen::SparseMatrix<double>::InnerIterator it(db.w, i); it; ++it) c += it.value() != 0;
    maxNnz = std::max(maxNnz, c);
  }
  std::printf("dembones %s: bones %d (after init %d, locked %d), nnz <= %d, %d iterations, %.2f s, rmse %.6g\n",
              mode.c_str(), int(db.nB), bonesAfterInit, mode == "free" ? 0 : J, maxNnz, db.iterations, seconds,
              db.rmse());
  return 0;
}
