import { describeStress } from './stress-scenario.js'

describeStress(true, 'built-in connector')
