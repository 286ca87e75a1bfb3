/**
 * GLSL replacing three.js's skinning shader chunks (`skinning_pars_vertex`, `skinbase_vertex`,
 * `skinnormal_vertex`, `skinning_vertex`) for DQS, CoR, skinning templates and (for more than 4
 * influences) LBS skinning, WebGL 2 (GLSL ES 3.0).
 *
 * Joint data come from `corskinJoints`, a float RGBA texture with {@link TEXELS_PER_JOINT}
 * texels per joint, filled on the CPU once per frame and mesh ({@link writeJointTexture}), in
 * the mesh's own (bind) space: the skinning matrix `M_j = [L_j | τ_j]` as three rows, then the
 * unit quaternion of its proper rotation R_j. When some `M_j` has scale, shear or reflection
 * (`corskinStretch` = 1), the shaders run corskin's two-phase skinning (the CPU's
 * `two-phase.ts`): the blended stretch `K̄ = Σ w_j R_jᵀ L_j` about a per-vertex center c (the
 * vertex for DQS, its center of rotation for CoR), then the rigid blend of `[R_j | M_j(c) − c]`.
 *
 * Templates (`templates.ts`): DQS, then the blend of the cage's corrections (dual quaternions)
 * through the vertex's run of cage entries (from `corskinCage` and `corskinBinding`, read once in
 * `skinbase_vertex`) with the identity for the share left to DQS, applied to position and normal.
 *
 * Direct Delta Mush (Le & Lewis 2019, `methods/ddm/three.ts`): per vertex the run of its entries in
 * `corskinDdm` (from `corskinDdmRange`), Q = Σ_j [L_j | M_j(v)]·Ω'_ij (compact: (Σ_j ω_ij
 * [L_j | M_j(v)])·Π'_i) about the vertex's bind position v, S = Q[0:3,0:3]/Q₃₃ − q pᵀ, its polar
 * factor R by the CPU's fixed steps (`methods/ddm/polar.ts`: 5 Jacobi sweeps on SᵀS, then U by
 * Gram–Schmidt), and the affine map `x ↦ R x + (q − σ R p − R v)` that the shared LBS normal and
 * position chunks apply (a rotation's cofactor is itself). With morph targets the vertex's frame
 * is its morphed position (three's morph chunk run once more in `skinbase_vertex`), as the CPU
 * deformer given the morphed positions.
 *
 * Antipodality: quaternion signs are fixed against the influence with the largest weight (ties
 * to the smaller joint index), the rule of every corskin kernel; zero weights contribute
 * nothing. Morph targets compose: three's morph chunks run before these.
 *
 * @module
 */

import type { DdmVariant } from '../methods/ddm/precompute.js';
import type { GpuMethodId } from '../deformers/registry.js';
import { POLAR_JACOBI_SWEEPS } from '../methods/ddm/polar.js';
import { TEXTURE_WIDTH } from '../methods/templates/three.js';

/** Texels per joint in the joint texture: matrix rows (3) and rotation quaternion (1). */
export const TEXELS_PER_JOINT = 4;

/** What a patched vertex shader computes. */
export interface ChunkOptions {
  /** One of the registry's GPU methods. */
  method: GpuMethodId;
  /** 8 influences from `corskinIndex0/1`, `corskinWeight0/1` instead of `skinIndex`/`skinWeight`. */
  eight: boolean;
  /** Direct Delta Mush: the variant of the packed data (`methods/ddm/three.ts`); required for `'ddm'`. */
  ddm?: DdmVariant;
}

const pars = (o: ChunkOptions) => /* glsl */ `
#ifdef USE_SKINNING
uniform highp sampler2D corskinJoints;
uniform float corskinStretch;
${o.eight ? 'in vec4 corskinIndex0;\nin vec4 corskinWeight0;\nin vec4 corskinIndex1;\nin vec4 corskinWeight1;' : ''}
${o.method === 'cor' ? 'in vec3 _center_of_rotation;' : ''}
${o.method === 'ddm' ? 'uniform highp sampler2D corskinDdm;\nin vec2 corskinDdmRange;' : ''}
${o.method === 'templates' ? 'uniform highp sampler2D corskinCage;\nuniform highp sampler2D corskinBinding;\nin vec2 corskinTemplateRange;' : ''}
vec4 corskinFetch( const in float joint, const in int k ) {
  int size = textureSize( corskinJoints, 0 ).x;
  int i = int( joint ) * ${TEXELS_PER_JOINT} + k;
  return texelFetch( corskinJoints, ivec2( i % size, i / size ), 0 );
}
vec3 corskinRotate( const in vec4 q, const in vec3 v ) {
  return v + 2.0 * cross( q.xyz, cross( q.xyz, v ) + q.w * v );
}
vec3 corskinTransform( const in float joint, const in vec3 p ) {
  vec4 p1 = vec4( p, 1.0 );
  return vec3( dot( corskinFetch( joint, 0 ), p1 ), dot( corskinFetch( joint, 1 ), p1 ), dot( corskinFetch( joint, 2 ), p1 ) );
}
mat3 corskinLinear( const in float joint ) {
  return transpose( mat3( corskinFetch( joint, 0 ).xyz, corskinFetch( joint, 1 ).xyz, corskinFetch( joint, 2 ).xyz ) );
}
mat3 corskinQuatMatrix( const in vec4 q ) {
  return mat3( corskinRotate( q, vec3( 1, 0, 0 ) ), corskinRotate( q, vec3( 0, 1, 0 ) ), corskinRotate( q, vec3( 0, 0, 1 ) ) );
}
// det(A)·A⁻ᵀ n with the sign of det(A): the normal transform of A, up to length.
vec3 corskinCofactor( const in mat3 a, const in vec3 n ) {
  mat3 c = mat3( cross( a[1], a[2] ), cross( a[2], a[0] ), cross( a[0], a[1] ) );
  return ( dot( a[0], c[0] ) < 0.0 ? -1.0 : 1.0 ) * ( c * n );
}
vec3 corskinNormalize( const in vec3 v ) {
  float l = length( v );
  return l > 0.0 ? v / l : v;
}${
  o.method === 'templates' || o.method === 'ddm'
    ? `
// Texel i of a ${TEXTURE_WIDTH}-wide texture (no integer division).
ivec2 corskinTexel( const in int i ) {
  return ivec2( i & ${TEXTURE_WIDTH - 1}, i >> ${Math.log2(TEXTURE_WIDTH)} );
}`
    : ''
}${o.method === 'ddm' ? ddmFunctions : ''}${
  o.method === 'templates'
    ? `
vec4 corskinCageReal( const in float index ) {
  return texelFetch( corskinCage, corskinTexel( 2 * int( index ) ), 0 );
}
vec4 corskinCageDual( const in float index ) {
  return texelFetch( corskinCage, corskinTexel( 2 * int( index ) + 1 ), 0 );
}`
    : ''
}
#endif
`;

/**
 * The polar factor of `methods/ddm/polar.ts`, step for step (float instead of double): a Jacobi rotation
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
// The orthogonal polar factor U·Vᵀ of S (see methods/ddm/polar.ts).
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
// |det L|^(1/3): the joint's uniform scale (σ of methods/ddm/deformer.ts).
float corskinScale( const in mat3 L ) {
  return pow( abs( determinant( L ) ), 1.0 / 3.0 );
}`;

/**
 * Direct Delta Mush into csL/csT (the affine map the LBS normal and position chunks apply):
 * a vertex with one entry (or none: joint 0) takes its joint's matrix, as the CPU deformer.
 */
const ddmBase = (o: ChunkOptions) => /* glsl */ `
#ifdef USE_SKINNING
  int csFirst = int( corskinDdmRange.x );
  int csCount = int( corskinDdmRange.y );
  mat3 csL;
  vec3 csT;
  if ( csCount <= 1 ) {
    float j = csCount == 0 ? 0.0 : texelFetch( corskinDdm, corskinTexel( csFirst${o.ddm === 'compact' ? ' + 3' : ''} ), 0 ).x;
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
    mat4x3 csQ = mat4x3( 0.0 );
    vec4 csB = vec4( 0.0 ); // Q's bottom row
    float csSigma = 0.0;
${
  o.ddm === 'compact'
    ? `    float csSw = 0.0;
    for ( int t = 0; t < ( csCount + 1 ) / 2; t++ ) {
      vec4 e = texelFetch( corskinDdm, corskinTexel( csFirst + 3 + t ), 0 );
      for ( int h = 0; h < 2; h++ ) {
        float j = h == 0 ? e.x : e.z;
        float we = h == 0 ? e.y : e.w;
        if ( we == 0.0 ) continue;
        mat3 a = corskinLinear( j );
        csQ += we * mat4x3( a[0], a[1], a[2], corskinTransform( j, csV ) );
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
      csQ += mat4x3( a[0], a[1], a[2], corskinTransform( x0.x, csV ) ) * X;
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
    // v' = q − σ R p at v (x ↦ R x + csT takes v there).
    csT = csQv - csSigma * ( csL * csPv ) - csL * csV;
  }
#endif
`;

const N = (o: ChunkOptions) => (o.eight ? 8 : 4);

/** Influences into csJ/csW, the pivot, the signed weights csS and quaternions csQs. */
const gather = (o: ChunkOptions) => /* glsl */ `
  float csJ[${N(o)}];
  float csW[${N(o)}];
${
  o.eight
    ? `  for ( int k = 0; k < 4; k++ ) {
    csJ[k] = corskinIndex0[k]; csW[k] = corskinWeight0[k];
    csJ[k + 4] = corskinIndex1[k]; csW[k + 4] = corskinWeight1[k];
  }`
    : `  for ( int k = 0; k < 4; k++ ) { csJ[k] = skinIndex[k]; csW[k] = skinWeight[k]; }`
}`;

/**
 * The joints' QLERP: influences, the pivot (largest weight), signed weights csS, quaternions csQs,
 * their normalised blend csQ (length csLen) and the blended stretch csK.
 */
const jointBlend = (o: ChunkOptions) => /* glsl */ `${gather(o)}
  int csP = 0;
  for ( int k = 1; k < ${N(o)}; k++ ) {
    if ( csW[k] > csW[csP] || ( csW[k] == csW[csP] && csJ[k] < csJ[csP] ) ) csP = k;
  }
  vec4 csPivot = corskinFetch( csJ[csP], 3 );
  vec4 csQs[${N(o)}];
  float csS[${N(o)}];
  csQ = vec4( 0.0 );
  for ( int k = 0; k < ${N(o)}; k++ ) {
    csQs[k] = corskinFetch( csJ[k], 3 );
    csS[k] = dot( csQs[k], csPivot ) < 0.0 ? -csW[k] : csW[k];
    csQ += csS[k] * csQs[k];
    if ( corskinStretch > 0.5 && csW[k] != 0.0 ) csK += csW[k] * ( transpose( corskinQuatMatrix( csQs[k] ) ) * corskinLinear( csJ[k] ) );
  }
  float csLen = length( csQ );
  csQ /= csLen;
  if ( corskinStretch < 0.5 ) csK = mat3( 1.0 );`;

const base = (o: ChunkOptions) => {
  if (o.method === 'ddm') return ddmBase(o);
  if (o.method === 'lbs')
    return /* glsl */ `
#ifdef USE_SKINNING
${gather(o)}
  mat3 csL = mat3( 0.0 );
  vec3 csT = vec3( 0.0 );
  for ( int k = 0; k < ${N(o)}; k++ ) {
    if ( csW[k] == 0.0 ) continue;
    csL += csW[k] * corskinLinear( csJ[k] );
    csT += csW[k] * corskinTransform( csJ[k], vec3( 0.0 ) );
  }
#endif
`;
  return /* glsl */ `
#ifdef USE_SKINNING
  vec4 csQ;
  mat3 csK = mat3( 0.0 );
${jointBlend(o)}
${
  o.method === 'templates'
    ? `  // The templates' correction: the vertex's cage entries' dual quaternions blended with the
  // identity for the share left to DQS (all real parts w ≥ 0: no sign flips), normalised.
  int csFirst = int( corskinTemplateRange.x );
  int csTexels = int( corskinTemplateRange.y );
  vec4 csCr = vec4( 0.0 );
  vec4 csCd = vec4( 0.0 );
  float csShare = 0.0;
  for ( int t = 0; t < csTexels; t++ ) {
    vec4 e = texelFetch( corskinBinding, corskinTexel( csFirst + t ), 0 );
    csCr += e.y * corskinCageReal( e.x ) + e.w * corskinCageReal( e.z );
    csCd += e.y * corskinCageDual( e.x ) + e.w * corskinCageDual( e.z );
    csShare += e.y + e.w;
  }
  csCr.w += max( 0.0, 1.0 - csShare );
  float csCl = length( csCr );
  csCr /= csCl;
  csCd /= csCl;`
    : ''
}${
    o.method === 'cor'
      ? `  vec3 csC = _center_of_rotation;
  vec3 csCp = vec3( 0.0 ); // Σ w_j M_j(c): linear blend skinning of the center of rotation
  for ( int k = 0; k < ${N(o)}; k++ ) if ( csW[k] != 0.0 ) csCp += csW[k] * corskinTransform( csJ[k], csC );`
      : ''
  }
#endif
`;
};

const normal = (o: ChunkOptions) => /* glsl */ `
#ifdef USE_SKINNING
${
  o.method === 'lbs' || o.method === 'ddm'
    ? `  objectNormal = corskinNormalize( corskinCofactor( csL, objectNormal ) );
  #ifdef USE_TANGENT
    objectTangent = corskinNormalize( csL * objectTangent );
  #endif`
    : o.method === 'templates'
      ? `  objectNormal = corskinRotate( csCr, corskinRotate( csQ, corskinNormalize( corskinCofactor( csK, objectNormal ) ) ) );
  #ifdef USE_TANGENT
    objectTangent = corskinRotate( csCr, corskinRotate( csQ, corskinNormalize( csK * objectTangent ) ) );
  #endif`
      : `  objectNormal = corskinRotate( csQ, corskinNormalize( corskinCofactor( csK, objectNormal ) ) );
  #ifdef USE_TANGENT
    objectTangent = corskinRotate( csQ, corskinNormalize( csK * objectTangent ) );
  #endif`
}
#endif
`;

const position = (o: ChunkOptions) => {
  const body =
    o.method === 'lbs' || o.method === 'ddm'
      ? `  transformed = csL * transformed + csT;`
      : o.method === 'cor'
        ? `  transformed = corskinRotate( csQ, csK * ( transformed - csC ) ) + csCp;`
        : // DQS with the vertex as center: blend the dual quaternions of [R_j | M_j(v) − v] and
          // move v by the blend's translation t = 2 (d ⊗ r*).
          `  vec4 csD = vec4( 0.0 );
  for ( int k = 0; k < ${N(o)}; k++ ) {
    if ( csW[k] == 0.0 ) continue;
    vec3 m = corskinTransform( csJ[k], transformed ) - transformed;
    vec4 q = csQs[k];
    csD += csS[k] * 0.5 * vec4( q.w * m + cross( m, q.xyz ), -dot( m, q.xyz ) );
  }
  csD /= csLen;
  transformed += 2.0 * ( csQ.w * csD.xyz - csD.w * csQ.xyz + cross( csQ.xyz, csD.xyz ) );${o.method === 'templates' ? '\n  transformed = corskinRotate( csCr, transformed ) + 2.0 * ( csCr.w * csCd.xyz - csCd.w * csCr.xyz + cross( csCr.xyz, csCd.xyz ) );' : ''}`;
  return `
#ifdef USE_SKINNING
${body}
#endif
`;
};

/**
 * Replaces three's skinning chunks in a vertex shader source with corskin's. `skinbase_vertex`
 * runs before `skinnormal_vertex` and `skinning_vertex` in every built-in material, so the blend
 * happens once; `skinning_vertex` comes after three's morph targets.
 */
export function patchVertexShader(source: string, o: ChunkOptions): string {
  return source
    .replace('#include <skinning_pars_vertex>', pars(o))
    .replace('#include <skinbase_vertex>', base(o))
    .replace('#include <skinnormal_vertex>', normal(o))
    .replace('#include <skinning_vertex>', position(o));
}
