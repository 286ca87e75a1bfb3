/**
 * Direct Delta Mush on WebGLRenderer (Binh Huy Le and J. P. Lewis, "Direct Delta Mush Skinning
 * and Variants", ACM TOG 38(4), SIGGRAPH 2019): the method's GLSL kernel for three's skinning
 * chunks (`three/chunks.ts`). Per vertex the run of its entries in `corskinDdm` (from
 * `corskinDdmRange`; the packing of `three.ts`), Q = Σ_j [L_j | M_j(v)]·Ω'_ij (compact:
 * (Σ_j ω_ij [L_j | M_j(v)])·Π'_i) about the vertex's bind position v, S = Q[0:3,0:3]/Q₃₃ − q pᵀ,
 * its polar factor R by the CPU's fixed steps (`polar.ts`: Jacobi sweeps on SᵀS, then U by
 * Gram–Schmidt), and the affine map `x ↦ R x + (q − σ R p − R v)` that the shared affine normal
 * and position chunks apply (a rotation's cofactor is itself). With morph targets the vertex's
 * frame is its morphed position (three's morph chunk run once more in `skinbase_vertex`), as the
 * CPU deformer given the morphed positions.
 *
 * @module
 */
import { affineNormal, affinePosition } from '../../three/chunks.js';
import type { GlslKernel, KernelOptions } from '../../three/kernel.js';
import { POLAR_JACOBI_SWEEPS } from './polar.js';

/**
 * The polar factor of `polar.ts`, step for step (float instead of double): a Jacobi rotation
 * zeroing a_pq of the symmetric A (r the third index), applied to V's columns p and q; skipped
 * (t = 0) where a_pq is already 0.
 */
const ddmFunctions = /* glsl */ `
void corskinJacobi( inout float app, inout float aqq, inout float apq, inout float apr, inout float aqr, inout vec3 vp, inout vec3 vq ) {
  float tau = ( aqq - app ) / ( 2.0 * apq );
  float t = apq == 0.0 ? 0.0 : ( tau >= 0.0 ? 1.0 : -1.0 ) / ( abs( tau ) + sqrt( 1.0 + tau * tau ) );
  float c = 1.0 / sqrt( 1.0 + t * t );
  float s = t * c;
  float nApr = c * apr - s * aqr;
  float nAqr = s * apr + c * aqr;
  app = app - t * apq;
  aqq = aqq + t * apq;
  apq = 0.0;
  apr = nApr;
  aqr = nAqr;
  vec3 np = c * vp - s * vq;
  vq = s * vp + c * vq;
  vp = np;
}
// The orthogonal polar factor U·Vᵀ of S (see polar.ts).
mat3 corskinPolar( const in mat3 S ) {
  mat3 A = transpose( S ) * S;
  float a00 = A[0][0], a01 = A[1][0], a02 = A[2][0], a11 = A[1][1], a12 = A[2][1], a22 = A[2][2];
  vec3 v0 = vec3( 1.0, 0.0, 0.0 ), v1 = vec3( 0.0, 1.0, 0.0 ), v2 = vec3( 0.0, 0.0, 1.0 );
  for ( int sweep = 0; sweep < ${POLAR_JACOBI_SWEEPS}; sweep++ ) {
    corskinJacobi( a00, a11, a01, a02, a12, v0, v1 );
    corskinJacobi( a00, a22, a02, a01, a12, v0, v2 );
    corskinJacobi( a11, a22, a12, a01, a02, v1, v2 );
  }
  // Descending eigenvalues a, b, c (the CPU's three compare-and-swaps).
  float ea = a00, eb = a11, ec = a22;
  vec3 va = v0, vb = v1, vc = v2;
  float ef; vec3 vf;
  if ( ea < eb ) { ef = ea; ea = eb; eb = ef; vf = va; va = vb; vb = vf; }
  if ( ea < ec ) { ef = ea; ea = ec; ec = ef; vf = va; va = vc; vc = vf; }
  if ( eb < ec ) { ef = eb; eb = ec; ec = ef; vf = vb; vb = vc; vc = vf; }
  vec3 u = S * va;
  float l = length( u );
  vec3 ua = l > 0.0 ? u / l : va;
  u = S * vb;
  u -= dot( u, ua ) * ua;
  l = length( u );
  if ( !( l > 1e-12 * sqrt( ea ) ) ) {
    float ax = abs( ua.x ) < 0.6 ? 1.0 : 0.0;
    float ay = 1.0 - ax;
    u = vec3( ay * ua.z, -ax * ua.z, ax * ua.y - ay * ua.x );
    l = length( u );
  }
  vec3 ub = u / l;
  vec3 w = cross( ua, ub );
  float d = dot( S * vc, w );
  float sgn = abs( d ) > 1e-9 * sqrt( ea ) ? ( d > 0.0 ? 1.0 : -1.0 ) : ( dot( cross( va, vb ), vc ) > 0.0 ? 1.0 : -1.0 );
  return outerProduct( ua, va ) + outerProduct( ub, vb ) + outerProduct( sgn * w, vc );
}
// |det L|^(1/3): the joint's uniform scale (σ of deformer.ts).
float corskinScale( const in mat3 L ) {
  return pow( abs( determinant( L ) ), 1.0 / 3.0 );
}`;

/**
 * Direct Delta Mush into csL/csT (the affine map the LBS normal and position chunks apply):
 * a vertex with one entry (or none: joint 0) takes its joint's matrix, as the CPU deformer.
 */
const ddmBase = (o: KernelOptions) => /* glsl */ `
  int csFirst = int( corskinDdmRange.x );
  int csCount = int( corskinDdmRange.y );
  mat3 csL;
  vec3 csT;
  if ( csCount <= 1 ) {
    float j = csCount == 0 ? 0.0 : texelFetch( corskinDdm, corskinTexel( csFirst${o.variant === 'compact' ? ' + 3' : ''} ), 0 ).x;
    csL = corskinLinear( j );
    csT = corskinTransform( j, vec3( 0.0 ) );
  } else {
    // The frame of the vertex's Ω': its position after three's morph targets (which run after
    // this chunk: the same morph chunk, here in a block of its own).
    vec3 csV;
    {
      vec3 transformed = vec3( position );
      #include <morphtarget_vertex>
      csV = transformed;
    }
    // Translations relative to r, the first entry's joint's image of v: S does not depend on r,
    // and floats keep their digits far from the origin (see asm/ddm.ts).
    vec3 csR = corskinTransform( texelFetch( corskinDdm, corskinTexel( csFirst${o.variant === 'compact' ? ' + 3' : ''} ), 0 ).x, csV );
    mat4x3 csQ = mat4x3( 0.0 );
    vec4 csB = vec4( 0.0 ); // Q's bottom row
    float csSigma = 0.0;
${
  o.variant === 'compact'
    ? `    float csSw = 0.0;
    for ( int t = 0; t < ( csCount + 1 ) / 2; t++ ) {
      vec4 e = texelFetch( corskinDdm, corskinTexel( csFirst + 3 + t ), 0 );
      for ( int h = 0; h < 2; h++ ) {
        float j = h == 0 ? e.x : e.z;
        float we = h == 0 ? e.y : e.w;
        if ( we == 0.0 ) continue;
        mat3 a = corskinLinear( j );
        csQ += we * mat4x3( a[0], a[1], a[2], corskinTransform( j, csV ) - csR );
        csSw += we;
        csSigma += we * corskinScale( a );
      }
    }
    vec4 x0 = texelFetch( corskinDdm, corskinTexel( csFirst ), 0 );
    vec4 x1 = texelFetch( corskinDdm, corskinTexel( csFirst + 1 ), 0 );
    vec4 x2 = texelFetch( corskinDdm, corskinTexel( csFirst + 2 ), 0 );
    mat4 X = mat4( x0, vec4( x0.y, x1.xyz ), vec4( x0.z, x1.y, x1.w, x2.x ), vec4( x0.w, x1.z, x2.x, x2.y ) );
    csQ = csQ * X;
    csB = csSw * X[3];
    csSigma /= csSw;`
    : `    for ( int e = 0; e < csCount; e++ ) {
      int i = csFirst + 3 * e;
      vec4 x0 = texelFetch( corskinDdm, corskinTexel( i ), 0 );
      vec4 x1 = texelFetch( corskinDdm, corskinTexel( i + 1 ), 0 );
      vec4 x2 = texelFetch( corskinDdm, corskinTexel( i + 2 ), 0 );
      // Ω' from (joint, X00, X01, X02), (X03, X11, X12, X13), (X22, X23, X33, 0)
      mat4 X = mat4( vec4( x0.yzw, x1.x ), vec4( x0.z, x1.yzw ), vec4( x0.w, x1.z, x2.xy ), vec4( x1.x, x1.w, x2.yz ) );
      mat3 a = corskinLinear( x0.x );
      csQ += mat4x3( a[0], a[1], a[2], corskinTransform( x0.x, csV ) - csR ) * X;
      csB += X[3];
      csSigma += x2.z * corskinScale( a );
    }
    csSigma /= csB.w;`
}
    float csIc = 1.0 / csB.w;
    vec3 csQv = csQ[3] * csIc;
    vec3 csPv = csB.xyz * csIc;
    mat3 csS = mat3( csQ[0], csQ[1], csQ[2] ) * csIc - outerProduct( csQv, csPv );
    csL = corskinPolar( csS );
    // v' = r + q − σ R p at v (x ↦ R x + csT takes v there).
    csT = csR + ( csQv - csSigma * ( csL * csPv ) - csL * csV );
  }`;

/** Direct Delta Mush's GLSL kernel: the variant (`full` or `compact`) is the packed data's. */
export const DDM_GLSL: GlslKernel = {
  pars: () => `uniform highp sampler2D corskinDdm;\nin vec2 corskinDdmRange;${ddmFunctions}`,
  base: ddmBase,
  normal: affineNormal,
  position: affinePosition,
};
